"""tallskinny's split of a C too big for one work-item's tile: auto's (the fewest tiles,
then the squarest) beside a candidate rule, the split that loads the fewest values a step
of K over all tiles (a run of 16 bytes one load where the kernel reads it as a vector),
taken where it loads at most LEANER_SPLIT of what auto's does, each with the groups
auto's model gives that split. Taken in turns in one process, on the same operands
(group_counts.py's timing: median of 10 after 2 a round, the order rotated each round),
kernel time from OpenCL events. (At 59d308e the candidate was auto's rule, and the
printout named it "auto" and the fewest tiles "before".)

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
from portgemm.auto.tallskinny import tile_for as shipped_tile_for

from group_counts import median_ms

SHAPES = ("32x6x1048576,32x6x8388608,6x32x1048576,64x3x1048576,3x64x1048576,"
          "12x12x1048576,12x12x8388608,41x6x1048576,20x10x1048576,16x9x8388608")


LEANER_SPLIT = 0.85


def step_loads(m: int, n: int, tile: tuple[int, int], layout: str, itemsize: int) -> int:
    """Loads a step of K costs C's tiles: each its rows of A and its columns of B, a run
    of 16 bytes one load where the kernel reads it as a vector."""
    rows, cols = tile
    width = 16 // itemsize
    a = rows // width if layout[0] == "F" and rows % width == 0 and m % width == 0 else rows
    b = cols // width if layout[1] == "C" and cols % width == 0 and n % width == 0 else cols
    return ceil(m / rows) * ceil(n / cols) * (a + b)


def leaner_split(layout: str, itemsize: int):
    """The candidate rule, as model.tile_for takes it: auto's split unless another loads
    at most LEANER_SPLIT of its values a step."""
    def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
        fewest = shipped_tile_for(m, n, budget)
        if m * n <= budget:
            return fewest
        splits = [(rows, min(n, budget // rows)) for rows in range(1, min(m, budget) + 1)]
        leanest = min(splits, key=lambda tile: (step_loads(m, n, tile, layout, itemsize),
                                                ceil(m / tile[0]) * ceil(n / tile[1]),
                                                abs(tile[0] - tile[1])))
        lean = step_loads(m, n, leanest, layout, itemsize)
        return leanest if lean <= LEANER_SPLIT * step_loads(m, n, fewest, layout,
                                                            itemsize) else fewest
    return tile_for


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
        points = {"auto": auto_with(shipped_tile_for, device, m, n, k, itemsize),
                  "loads": auto_with(leaner_split("CC", itemsize), device, m, n, k,
                                     itemsize)}
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
        print(f"{spec:<14} auto {tile['auto']}: {med['auto'] * 1e3:8.1f} us | loads "
              f"{tile['loads']}: {med['loads'] * 1e3:8.1f} us | auto / loads "
              f"{med['auto'] / med['loads']:.3f}", flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
