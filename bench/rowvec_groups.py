"""ROWVEC's groups a tile (GS) on a CPU: each shape's sweep over GS with the bandwidth
model's other parameters, in interleaved rounds (portgemm.tune.sweep.sweep_rounds), beside
the model's own GS. ``--wall``: the whole call's wall time instead (gemm in turns, the
median of the rounds), which counts the gap before a second launch that events leave out.

    python bench/rowvec_groups.py --device intel --rounds 7 --groups 1,2,4,8,16,32,64,128 \
        --sizes 3x3x8388608,100x100x10000 [--wall] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
from types import SimpleNamespace

import numpy as np

import portgemm
from portgemm.auto.tallskinny import cpu_row_params
from portgemm.auto.traits import traits
from portgemm.bench.runner import parse_sizes
from portgemm.tune.sweep import sweep_rounds


def wall_rounds(rounds, device, size, points, params):
    """Each point's median wall time (as kernel_ms, in the sweep's points) over ``rounds``
    calls of gemm taken in turn, after a warm-up round, and its relative error."""
    m, n, k = size
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    reference = a.astype(np.float64) @ b
    times = {point: [] for point in points}
    errors = {}
    for round_ in range(rounds + 1):
        for gs, bs in points:
            result = portgemm.gemm(a, b, device=device, variant="tallskinny",
                                   params={**params, "GS": gs, "BS": bs})
            if round_:
                times[(gs, bs)].append(result.wall_ms)
            errors[(gs, bs)] = float(np.linalg.norm(result.c - reference)
                                     / np.linalg.norm(reference))
    return [SimpleNamespace(gs=gs, bs=bs, status="ok", relerr=errors[(gs, bs)],
                            kernel_ms=statistics.median(times[(gs, bs)]))
            for gs, bs in points]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--sizes", required=True)
    parser.add_argument("--groups", default="1,2,4,8,16,32,64,128,256,1024")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--wall", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description)
    groups = [int(g) for g in args.groups.split(",")]
    record = []
    for size in parse_sizes(args.sizes):
        params, why = cpu_row_params(traits(device), *size)
        model = params.pop("GS")
        params.pop("BS")
        points = [(g, 1) for g in sorted(set(groups) | {model})]
        if args.wall:
            found = wall_rounds(args.rounds, device, size, points, params)
        else:
            found = sweep_rounds(args.rounds, "tallskinny", device, size, points,
                                 params=params, reps=args.reps)
        timed = [p for p in found if p.status == "ok"]
        best = min(p.kernel_ms for p in timed)
        print(f"{'x'.join(map(str, size))}: tile {params['tile_y']}x{params['tile_x']}, "
              f"model GS={model} ({why})", flush=True)
        for p in found:
            line = f"  GS={p.gs:5d}  {p.status}"
            if p.status == "ok":
                line = (f"  GS={p.gs:5d}  {p.kernel_ms:8.3f} ms  {p.kernel_ms / best:6.3f}x "
                        f"the fastest  rel err {p.relerr:.1e}")
            print(line + ("  <- model" if p.gs == model else ""), flush=True)
        record.append({"size": size, "model_gs": model, "params": params, "rounds": args.rounds,
                       "sweep": [p.__dict__ for p in found]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
