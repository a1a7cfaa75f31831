"""tallskinny's split of a C too big for one work-item's tile: auto's (the fewest loads a
step of K over all tiles, since 2026-11-27) beside the split into the fewest tiles that it
took before, each with the groups auto's model gives that split. Taken in turns in one
process, on the same operands (group_counts.py's timing: median of 10 after 2 a round,
the order rotated each round), kernel time from OpenCL events.

    python3 bench/gpu/tile_split.py [--shapes 32x6x1048576,...] [--rounds 5] [--json split.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from math import ceil

import numpy as np

import portgemm
import portgemm.auto.tallskinny as model
from portgemm.auto import choice

from group_counts import median_ms

SHAPES = ("32x6x1048576,32x6x8388608,6x32x1048576,64x3x1048576,3x64x1048576,"
          "12x12x1048576,12x12x8388608,41x6x1048576,20x10x1048576,16x9x8388608")


def fewest_tiles(m: int, n: int, budget: int, *_) -> tuple[int, int]:
    """The split before: the fewest tiles, then the squarest."""
    if m * n <= budget:
        return m, n
    splits = [(ceil(m / rows) * ceil(n / min(n, budget // rows)), abs(rows - min(n, budget // rows)),
               (rows, min(n, budget // rows))) for rows in range(1, min(m, budget) + 1)]
    return min(splits)[2]


def auto_with(tile_rule, device, m, n, k, itemsize):
    """auto's tallskinny parameters with tile_rule splitting C"""
    kept = model.tile_for
    model.tile_for = tile_rule
    choice._memo.clear()
    try:
        return portgemm.auto.choose(device, m, n, k, itemsize)
    finally:
        model.tile_for = kept
        choice._memo.clear()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", default="tile_split.json")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    rng = np.random.default_rng(0)
    itemsize = np.dtype(args.dtype).itemsize
    rows = []
    for spec in args.shapes.split(","):
        m, n, k = map(int, spec.split("x"))
        points = {"auto": auto_with(model.tile_for, device, m, n, k, itemsize),
                  "before": auto_with(fewest_tiles, device, m, n, k, itemsize)}
        if any(c.variant != "tallskinny" for c in points.values()):
            print(f"{spec}: auto picks {points['auto'].variant}; skipped", flush=True)
            continue
        a = rng.uniform(-1, 1, (m, k)).astype(args.dtype)
        b = rng.uniform(-1, 1, (k, n)).astype(args.dtype)
        ref = a.astype(np.float64) @ b
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        times = {name: [] for name in points}
        errors = {}
        for r in range(args.rounds):
            names = list(points)[r % 2:] + list(points)[:r % 2]
            for name in names:
                ms, result = median_ms(a_dev, b_dev, points[name].params)
                times[name].append(ms)
                c = result.c.get()
                errors[name] = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        med = {name: statistics.median(t) for name, t in times.items()}
        rows.append({"shape": spec, "dtype": args.dtype,
                     "params": {name: c.params for name, c in points.items()},
                     "rounds_ms": times, "median_ms": med, "relerr": errors})
        tile = {name: f"{c.params['tile_y']}x{c.params['tile_x']} GS {c.params['GS']} "
                      f"BS {c.params['BS']}" for name, c in points.items()}
        print(f"{spec:<14} auto {tile['auto']}: {med['auto'] * 1e3:8.1f} us | before "
              f"{tile['before']}: {med['before'] * 1e3:8.1f} us | before / auto "
              f"{med['before'] / med['auto']:.3f}", flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
