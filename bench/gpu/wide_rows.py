"""The wide kernel for C of 16 to 128 rows on the GPU: rows a work-item (tile_y), columns
(tile_x), steps of K at a time (KU) and layers along K (KSPLIT: the model's for the tile
and twice it), each
with A row-major (read four values a load) and the same A column-major (one value a
load, the sums in the same order), beside what ``auto`` runs and cuBLAS (torch, TF32
off), all in one run. Kernel times are OpenCL events (median of 5 after 2).

    python3 bench/gpu/wide_rows.py --json wide_rows.json
    python3 bench/gpu/wide_rows.py --device opencl:cpu:0 --shapes 32x512x512 --quick
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
from math import ceil, log2

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.traits import traits
from portgemm.auto.wide import FILL, MAX_SPLIT

from shapes import cublas_ms, random_operands

SHAPES = "16x8192x8192,24x4096x4096,32x4096x4096,32x8192x8192,48x8192x8192,64x4096x4096," \
         "64x8192x8192,128x8192x8192"


def timed(a, b, reps, **kwargs):
    runs = [portgemm.gemm(a, b, **kwargs) for _ in range(reps + 2)]
    return statistics.median(r.kernel_ms for r in runs[2:]), runs[-1]


def model_split(device, m, n, tile_y, tile_x, group=256):
    """The GPU rule of portgemm/auto/wide.py for a tile of tile_y x tile_x."""
    blocks = ceil(m / tile_y) * ceil(n / (group * tile_x))
    split = 1 << max(0, round(log2(max(1.0, FILL * traits(device).slots / (blocks * group)))))
    return min(split, MAX_SPLIT)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--json", default="wide_rows.json")
    p.add_argument("--quick", action="store_true", help="one configuration a tile (a dry run)")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    rows = []
    for m, n, k, a, b, ref in random_operands(args.shapes):
        a_ones = np.asfortranarray(a)
        b_dev = portgemm.to_device(b, device)
        auto_ms, auto = timed(a, b_dev, 5, device=device)
        row = {"m": m, "n": n, "k": k, "auto_variant": auto.variant,
               "auto_params": auto.params, "auto_ms": auto_ms,
               "auto_reason": choose(device, m, n, k).reason, "cublas_ms": cublas_ms(a, b),
               "configs": []}
        print(json.dumps({key: row[key] for key in ("m", "n", "k", "auto_variant",
                                                    "auto_ms", "cublas_ms")}), flush=True)
        tiles = sorted({t for t in (16, 32, 64) if t <= m} | ({m} if m <= 64 else set()))
        for tile_y in tiles:
            for tile_x, steps in itertools.product((1, 2), (4, 8) if tile_y > 16 else (8,)):
                split = model_split(device, m, n, tile_y, tile_x)
                splits = [split] if args.quick else sorted({split, min(MAX_SPLIT, split * 2)})
                for ksplit in splits:
                    params = {"BS": 256, "tile_y": tile_y, "tile_x": tile_x, "KU": steps,
                              "BY_COLUMN": 0, "KSPLIT": ksplit}
                    found = dict(params)
                    for label, left in (("rows", a), ("columns", a_ones)):
                        try:
                            ms, result = timed(left, b_dev, 5, device=device,
                                               variant="wide", params=params)
                        except portgemm.ParameterError as exc:
                            found[f"{label}_error"] = str(exc)[:100]
                            found[f"{label}_ms"] = float("inf")
                            continue
                        c = result.c.get() if hasattr(result.c, "get") else result.c
                        found[f"{label}_ms"] = ms
                        found[f"{label}_relerr"] = float(np.linalg.norm(c - ref)
                                                         / np.linalg.norm(ref))
                    row["configs"].append(found)
                    print(json.dumps(found), flush=True)
        best = min(row["configs"], key=lambda c: c["rows_ms"])
        row["best"] = best
        print(f"== {m}x{n}x{k}: auto {auto.variant} {auto_ms:.4f} ms; best wide "
              f"{best['tile_y']}x{best['tile_x']} KSPLIT {best['KSPLIT']}: A row-major "
              f"{best['rows_ms']:.4f} ms, column-major {best['columns_ms']:.4f} ms; cuBLAS "
              f"{row['cublas_ms']}", flush=True)
        rows.append(row)
        del b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.name, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
