"""Deep-K shapes on the GPU whose C is not a whole number of large tiles (33-127 rows or
columns): the tile ``auto`` fits now (least padded work per multiply-add,
``portgemm/auto/splitk.py: fitting_tile``) against the rule before it (the largest tile
inside C, else the smallest), each split along K by auto's model, beside cuBLAS (torch,
TF32 off), all in one run. Kernel times are OpenCL events (median of 10 after 2),
operands already on the device.

    python3 bench/gpu/fit_tiles.py --json fit_tiles.json

With --ordinary, shapes of the size classes instead: what ``auto`` runs (their entry's
tile) as "before", against the tile the deep-K rule would fit to C, split by the model,
as "now".

    python3 bench/gpu/fit_tiles.py --ordinary --shapes 48x8192x1024,4096x48x2048
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import portgemm
import portgemm.auto.choice as choice
from portgemm.auto import choose
from portgemm.auto.database import default_sources
from portgemm.families import get_variant

from shapes import cublas_ms, kernel_ms, random_operands

SHAPES = "33x8192x8192,40x4096x4096,48x8192x8192,48x2048x8192,64x8192x8192,100x4096x4096," \
         "100x8192x8192,127x4096x4096,4096x48x4096,4096x100x4096,33x33x1000000,50x50x2000000"


def largest_inside(candidates, m, n):
    """The rule before: the largest candidate tile inside C, else the smallest."""
    def block(i):
        return get_variant(candidates[i][0]).block(candidates[i][1])

    inside = [i for i in range(len(candidates)) if block(i)[0] <= m and block(i)[1] <= n]
    if inside:
        return max(inside, key=lambda i: (block(i)[0] * block(i)[1], -i))
    return min(range(len(candidates)), key=lambda i: (block(i)[0] * block(i)[1], i))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--json", default="fit_tiles.json")
    p.add_argument("--ordinary", action="store_true",
                   help="auto's choice against the fitted tile (shapes of the size classes)")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    rows = []
    for m, n, k, a, b, ref in random_operands(args.shapes):
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        if args.ordinary:
            before = choose(device, m, n, k)
            now = choice._fitting_tile(device, m, n, k, 4, default_sources(), "")
        else:
            now = choose(device, m, n, k)
            fitting = choice.fitting_tile
            choice.fitting_tile = largest_inside
            try:
                before = choice._fitting_tile(device, m, n, k, 4, default_sources(), "")
            finally:
                choice.fitting_tile = fitting
        row = {"m": m, "n": n, "k": k, "reason": now.reason, "cublas_ms": cublas_ms(a, b)}
        for label, picked in (("now", now), ("before", before)):
            ms, result = kernel_ms(a_dev, b_dev, variant=picked.variant, params=picked.params)
            c = result.c.get()
            row[label] = {"variant": picked.variant, "params": picked.params, "ms": ms,
                          "relerr": float(np.linalg.norm(c - ref) / np.linalg.norm(ref))}
        rows.append(row)
        cublas = row["cublas_ms"] or float("nan")
        print(f"{m}x{n}x{k}: now {now.variant} {row['now']['ms']:.4f} ms, before "
              f"{before.variant} {row['before']['ms']:.4f} ms, cuBLAS {cublas:.4f} ms: now "
              f"{row['before']['ms'] / row['now']['ms']:.2f}x faster, "
              f"{cublas / row['now']['ms']:.0%} of cuBLAS "
              f"(before {cublas / row['before']['ms']:.0%})", flush=True)
        del a_dev, b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.name, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
