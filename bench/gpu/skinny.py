"""The skinny class on the GPU: a C of few rows (wide) or few columns (tallskinny in
tiles), what ``auto`` picks against the route such shapes took before (xgemm split along
K where the shape was deep-K, the size class's entry otherwise), cuBLAS (torch, TF32 off)
and the device's copy bandwidth, all in one run; then (``--sweep``) the wide kernel's
KSPLIT, KU, tile_x and loop order and tallskinny's tile rows and GS swept around the
models' choices, (``--grid``) the wide kernel (or tallskinny, for a tall C) over a grid of its
parameters.

Kernel times are OpenCL events (median of 10 after 2), operands already on the device;
the effective bandwidth counts A, B and C once.

    python3 bench/gpu/skinny.py --json skinny.json [--sweep]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.choice import _fitting_tile
from portgemm.auto.database import default_sources
from portgemm.auto.lookup import lookup
from portgemm.auto.shapes import SIZE_CLASSES, size_class

from shapes import copy_bandwidth, cublas_ms, kernel_ms

WIDE = [(1, 4096, 4096), (1, 8192, 8192), (1, 16384, 16384), (4, 4096, 4096),
        (8, 8192, 8192), (16, 8192, 8192), (1, 4096, 1024), (3, 1001, 777), (1, 50000, 1024),
        (24, 4096, 4096), (32, 8192, 8192)]
TALL = [(4096, 1, 4096), (8192, 1, 8192), (16384, 1, 16384), (8192, 4, 8192),
        (8192, 8, 8192), (50000, 1, 1024), (4096, 12, 4096), (4096, 16, 4096),
        (8192, 16, 8192)]


def before(device, m, n, k):
    """(variant, params) the route before the skinny class: xgemm's fitting tile split
    along K for a deep-K shape (C of < 256 tiles, K >= 4096), else the size class's
    entry (through choose's own lookup of the nearest class)."""
    sources = default_sources()
    if m * n / 128 ** 2 < 256 and k >= 4096:
        old = _fitting_tile(device, m, n, k, 4, sources, "")
        return old.variant, old.params
    nearest = size_class(m, n, k)
    found, _ = lookup(device, m, n, k, 4, sources,
                      classes=[nearest] + [c for c in SIZE_CLASSES if c != nearest])
    return (found.entry.variant, found.params) if found else (None, None)


def measure(device, m, n, k, copy_gbs, rng):
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    nbytes = 4 * (m * k + k * n + m * n)
    row = {"m": m, "n": n, "k": k, "class": choose(device, m, n, k).reason.split(" (")[0]}
    ms, result = kernel_ms(a_dev, b_dev)
    c = result.c.get()
    row.update(variant=result.variant, params=result.params, kernel_ms=ms,
               of_copy_bw=nbytes / (ms * 1e6) / copy_gbs,
               relerr=float(np.linalg.norm(c - ref) / np.linalg.norm(ref)),
               bitwise_repeatable=bool(np.array_equal(c, portgemm.matmul(a_dev, b_dev).get())))
    variant, params = before(device, m, n, k)
    if variant:
        old_ms, _ = kernel_ms(a_dev, b_dev, variant=variant, params=params)
        row.update(before_variant=variant, before_params=params, before_ms=old_ms)
    cublas = cublas_ms(a, b)
    row.update(cublas_ms=cublas, of_cublas=cublas and cublas / ms)
    return row, a_dev, b_dev


SWEEP_TALL = {"tile_y": [4, 8, 16, 32, 64], "GS": [1, 2, 4, 8, 16], "KU": [1, 2, 4, 8],
              "BS": [64, 128, 256, 512]}


def sweep(a_dev, b_dev, row):
    """Each parameter of the chosen kernel in turn, the others as chosen: the wide
    kernel's KSPLIT from a quarter to four times the model's, KU and tile_x halved and
    doubled, the other loop order; tallskinny's tile rows, GS, KU and BS."""
    if row["variant"] == "wide":
        chosen = row["params"]
        grid = {"KSPLIT": [max(1, chosen["KSPLIT"] * f // 4) for f in (1, 2, 8, 16)],
                "KU": [chosen["KU"] // 2, chosen["KU"] * 2],
                "tile_x": [max(1, chosen["tile_x"] // 2), chosen["tile_x"] * 2],
                "BY_COLUMN": [1 - chosen["BY_COLUMN"]]}
    else:
        grid = SWEEP_TALL
    found = []
    for name, values in grid.items():
        for value in values:
            params = {**row["params"], name: value}
            try:
                ms, _ = kernel_ms(a_dev, b_dev, variant=row["variant"], params=params, reps=5)
            except portgemm.ParameterError as exc:
                found.append({name: value, "error": str(exc)[:80]})
                continue
            found.append({name: value, "kernel_ms": ms})
    return found


GRID_WIDE = {"tile_x": [1, 2], "KU": [4, 8, 16], "KSPLIT": [32, 64, 128, 256, 512],
             "BS": [256, 512], "tile_y": [8, 16, 32]}
GRID_TALL = {"tile_y": [4, 8, 16, 32], "tile_x": [4, 8, 16], "BS": [256, 512], "KU": [1, 2],
             "GS": [1, 2, 4]}


def grid(a_dev, b_dev, m, n):
    """A wide C (m <= n) on the wide kernel over the product of GRID_WIDE (tile_y up to
    C's rows), a tall one on tallskinny over GRID_TALL (tile_x up to C's columns),
    fastest first, whatever auto chose."""
    import itertools

    variant, space = ("wide", GRID_WIDE) if m <= n else ("tallskinny", GRID_TALL)
    if variant == "wide":
        space = {**space, "tile_y": sorted({t for t in space["tile_y"] if t <= m}
                                           | ({m} if m <= max(space["tile_y"]) else set()))}
    else:
        space = {**space, "tile_x": sorted({min(t, n) for t in space["tile_x"]})}
    fixed = {"REDUCE": 1, "FUSE": 1} if variant == "tallskinny" else {}
    found = []
    for values in itertools.product(*space.values()):
        params = {**fixed, **dict(zip(space, values))}
        try:
            ms, _ = kernel_ms(a_dev, b_dev, variant=variant, params=params, reps=5)
        except portgemm.ParameterError:
            continue
        found.append({"variant": variant, **params, "kernel_ms": ms})
    return sorted(found, key=lambda row: row["kernel_ms"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="skinny.json")
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--grid", action="store_true",
                   help="the wide kernel's (or tallskinny's, for a tall C) joint grid")
    p.add_argument("--only", default="", help="wide or tall")
    p.add_argument("--shapes", default="", help="MxNxK,... in place of the lists (a dry run)")
    p.add_argument("--space", action="append", default=[], metavar="NAME=V1,V2",
                   help="replace one parameter's values in the grid")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    copy_gbs = copy_bandwidth(device)
    print(json.dumps({"device": device.name, "copy_gbs": copy_gbs}), flush=True)
    for item in args.space:
        name, values = item.split("=")
        for space in (GRID_WIDE, GRID_TALL):
            if name in space:
                space[name] = [int(v) for v in values.split(",")]
    rng = np.random.default_rng(0)
    rows = []
    shapes = {"wide": WIDE, "tall": TALL}.get(args.only, WIDE + TALL)
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    for m, n, k in shapes:
        row, a_dev, b_dev = measure(device, m, n, k, copy_gbs, rng)
        if args.sweep:
            row["sweep"] = sweep(a_dev, b_dev, row)
        if args.grid:
            row["grid"] = grid(a_dev, b_dev, m, n)
            print(json.dumps({"best": row["grid"][:5]}), flush=True)
        rows.append(row)
        print(json.dumps(row), flush=True)
        del a_dev, b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.name, "copy_gbs": copy_gbs, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
