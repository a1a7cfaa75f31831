"""ROWVEC's groups a tile (GS) on a CPU: each shape's sweep over GS with the bandwidth
model's other parameters, in interleaved rounds (portgemm.tune.sweep.sweep_rounds), beside
the model's own GS.

    python bench/rowvec_groups.py --device intel --rounds 7 --groups 1,2,4,8,16,32,64,128 \
        --sizes 3x3x8388608,100x100x10000 [--json OUT]
"""

from __future__ import annotations

import argparse
import json

import portgemm
from portgemm.auto.tallskinny import cpu_row_params
from portgemm.auto.traits import traits
from portgemm.bench.runner import parse_sizes
from portgemm.tune.sweep import sweep_rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--sizes", required=True)
    parser.add_argument("--groups", default="1,2,4,8,16,32,64,128,256,1024")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--reps", type=int, default=3)
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
        found = sweep_rounds(args.rounds, "tallskinny", device, size, points, params=params,
                             reps=args.reps)
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
