"""tallskinny's count of groups (GS): auto's (whole waves of the compute units, since
2026-11-27) beside the bound of at least MIN_TERMS steps a work-item, which auto took
before where it fell short of a wave (128 of 132 SMs at K = 2^21 with groups of 1024),
and beside the counts --gs names, everything else auto's. Taken in turns in one process,
on the same operands: each round times every point (median of 10 after 2), in an order
rotated each round; the table gives each one's median over the rounds, kernel time from
OpenCL events.

    python3 bench/gpu/group_counts.py [--shapes 3x3x2097152,...] [--gs 64,132,264]
        [--rounds 5] [--json gs.json]
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.tallskinny import MIN_TERMS

from shapes import kernel_ms

SHAPES = ("3x3x2097152,5x5x2097152,4x4x2097152,1x1x1800000,3x3x1500000,5x5x1200000,"
          "7x7x700000,8x8x1048576,9x9x1048576,2x2x4194304")


def operands(m: int, n: int, k: int, dtype, rng):
    """A (m x k) and B (k x n) of dtype from U(-1, 1)"""
    return (rng.uniform(-1, 1, (m, k)).astype(dtype), rng.uniform(-1, 1, (k, n)).astype(dtype))


def in_turns(device, a, b, calls, rounds):
    """portgemm.gemm with each of calls' keyword arguments (name: kwargs) on the same
    operands, in turns: (each one's times a round in ms, their medians, relative errors
    against float64)"""
    ref = a.astype(np.float64) @ b
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    times = {name: [] for name in calls}
    errors = {}
    for r in range(rounds):
        names = list(calls)[r % len(calls):] + list(calls)[:r % len(calls)]
        for name in names:
            ms, result = kernel_ms(a_dev, b_dev, **calls[name])
            times[name].append(ms)
            c = result.c.get()
            errors[name] = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
    return times, {name: statistics.median(t) for name, t in times.items()}, errors


def shape_parser(doc: str, shapes: str, json_name: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--shapes", default=shapes)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", default=json_name)
    return p


def measure_shapes(args, points_for, line) -> None:
    """For each of args.shapes: points_for(device, m, n, k, itemsize) gives the points to
    time (name: tallskinny's params; None skips the shape), in_turns times them, line(points,
    medians) says how they came out; the rows go to args.json."""
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    rng = np.random.default_rng(0)
    itemsize = np.dtype(args.dtype).itemsize
    rows = []
    for spec in args.shapes.split(","):
        m, n, k = map(int, spec.split("x"))
        points = points_for(device, m, n, k, itemsize)
        if points is None:
            print(f"{spec}: auto does not pick tallskinny; skipped", flush=True)
            continue
        calls = {name: dict(variant="tallskinny", params=params)
                 for name, params in points.items()}
        times, med, errors = in_turns(device, *operands(m, n, k, args.dtype, rng), calls,
                                      args.rounds)
        rows.append({"shape": spec, "dtype": args.dtype, "params": points,
                     "rounds_ms": times, "median_ms": med, "relerr": errors})
        print(f"{spec:<14} {line(points, med)}", flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rows": rows}, f, indent=1)


def main():
    p = shape_parser(__doc__, SHAPES, "group_counts.json")
    p.add_argument("--gs", default="", help="more counts of groups to time, GS[,GS]")
    args = p.parse_args()

    def points_for(device, m, n, k, itemsize):
        chosen = choose(device, m, n, k, itemsize)
        if chosen.variant != "tallskinny":
            return None
        bound = k // (MIN_TERMS * chosen.params["BS"])
        counts = {"bound": max(1, min(chosen.params["GS"], bound))}
        counts.update((f"GS={gs}", int(gs)) for gs in args.gs.split(",") if gs)
        points = {"auto": dict(chosen.params)}
        for name, gs in counts.items():
            if gs not in (point["GS"] for point in points.values()):
                points[name] = dict(chosen.params, GS=gs)
        return points

    def line(points, med):
        return (f"BS={points['auto']['BS']:<4} "
                + " | ".join(f"{name} ({points[name]['GS']}) {med[name] * 1e3:7.1f} us "
                             f"{med[name] / med['auto']:.3f}" for name in points))

    measure_shapes(args, points_for, line)


if __name__ == "__main__":
    main()
