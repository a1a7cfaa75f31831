"""Is tallskinny at K = 2^21 held back by how it reads B? auto's tallskinny for M = N
with B row-major (each load of B[k][x] across a warp strided N values apart, the
layout every record timed) beside B column-major (each load coalesced, as A's are),
then, row-major, GS x BS x KU points around auto's; the empty kernel and the copy
bandwidth in the same run.

    python3 bench/gpu/tall_layouts.py [--device gpu] [--sizes 3,5,7,8,9,16]
        [--k 2097152 --k 33554432] [--grid-sizes 5,7,9] [--json layouts.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

import portgemm

sys.path.insert(0, str(Path(__file__).parent))
from shapes import kernel_ms  # noqa: E402
from tallskinny_parts import baseline  # noqa: E402


def operands(device, mn, k, rng):
    a = rng.uniform(-1, 1, (mn, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, mn)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    a_dev = portgemm.to_device(a, device)
    rows = portgemm.to_device(b, device)                        # B row-major
    cols = portgemm.to_device(np.ascontiguousarray(b.T), device).T  # B column-major
    return a_dev, {"CC": rows, "CF": cols}, ref


def row(mn, k, layout, ms, result, ref, copy_gbs, **extra):
    err = float(np.linalg.norm(result.c.get() - ref) / np.linalg.norm(ref))
    ideal = 2 * mn * k * 4 / copy_gbs * 1e-6
    out = {"m": mn, "k": k, "layout": layout, "variant": result.variant,
           "params": result.params, "kernel_us": ms * 1e3, "of_copy_bw": ideal / ms,
           "relerr": err, **extra}
    shown = {x: result.params.get(x) for x in ("GS", "BS", "KU", "tile_y", "tile_x", "TG")}
    print(f"{mn:2d}x{mn:<2d} K={k:<9d} {layout} {result.variant} {shown} "
          f"{ms * 1e3:7.1f} us  {ideal / ms:4.0%} of copy BW  err {err:.1e}", flush=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--sizes", default="3,5,7,8,9,16")
    p.add_argument("--k", type=int, action="append")
    p.add_argument("--grid-sizes", default="5,7,9")
    p.add_argument("--json", default="layouts.json")
    args = p.parse_args()
    device, _, copy_gbs, empty = baseline(args.device)
    rng = np.random.default_rng(3)
    record = {"device": str(device), "copy_gbs": copy_gbs, "empty_ms": empty,
              "layouts": [], "grid": []}
    grid_sizes = {int(x) for x in args.grid_sizes.split(",") if x}
    for k in args.k or [1 << 21]:
        for mn in map(int, args.sizes.split(",")):
            a_dev, b_by_layout, ref = operands(device, mn, k, rng)
            for layout, b_dev in b_by_layout.items():
                ms, result = kernel_ms(a_dev, b_dev, reps=20)
                record["layouts"].append(row(mn, k, layout, ms, result, ref, copy_gbs))
            if mn not in grid_sizes or result.variant != "tallskinny":
                continue
            base = dict(result.params)
            for gs, bs, ku in itertools.product((132, 264), (256, 512, 1024), (1, 2)):
                params = dict(base, GS=gs, BS=bs, KU=ku)
                try:
                    ms, result = kernel_ms(a_dev, b_by_layout["CC"], reps=20,
                                           variant="tallskinny", params=params)
                except portgemm.ParameterError as exc:
                    print(f"{mn}x{mn} GS={gs} BS={bs} KU={ku}: {exc}", flush=True)
                    continue
                record["grid"].append(row(mn, k, "CC", ms, result, ref, copy_gbs))
            del a_dev, b_by_layout
    with open(args.json, "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
