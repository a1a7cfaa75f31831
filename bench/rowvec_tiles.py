"""ROWVEC's tile on a CPU: one shape under several tiles (rows x columns; a row of more
than 16 columns takes several vectors), kernel time in rounds whose order rotates
(portgemm.tune.measure.times_in_turns), the bandwidth model's tile and groups beside them.

    python bench/rowvec_tiles.py --device intel --size 4x4096x4096 \
        --tiles 4x16,4x64,4x112,2x224 [--groups 16] [--rounds 5] [--layout CF] [--json OUT]

Every tile runs with the model's other parameters and the same GS (the model's, or
--groups), so only the tile differs.
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

import portgemm
from portgemm.auto.tallskinny import cpu_row_params
from portgemm.auto.traits import traits
from portgemm.bench.runner import parse_sizes
from portgemm.families import get_variant
from portgemm.runtime.queue import Queue
from portgemm.tune.measure import Workload, times_in_turns


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--size", required=True)
    parser.add_argument("--tiles", required=True, help="ROWSxCOLUMNS,...")
    parser.add_argument("--groups", type=int, default=None, help="GS (default: the model's)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--layout", default="CC", choices=["CC", "CF", "FC", "FF"],
                        help="A's and B's order: C row-major, F column-major")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    size = parse_sizes(args.size)[0]
    model, why = cpu_row_params(traits(device), *size, layout=args.layout)
    groups = args.groups or model["GS"]
    print(device.description)
    print(f"{'x'.join(map(str, size))}: model tile {model['tile_y']}x{model['tile_x']} "
          f"GS={model['GS']} ({why}); every tile below with GS={groups}, layout "
          f"{args.layout}", flush=True)
    impl = get_variant("tallskinny")
    tiles = [tuple(int(x) for x in tile.split("x")) for tile in args.tiles.split(",")]
    candidates = [impl.check({**model, "tile_y": rows, "tile_x": columns, "GS": groups},
                             device) for rows, columns in tiles]
    work = Workload(size, np.float32, 0)
    work.a = np.asfortranarray(work.a) if args.layout[0] == "F" else work.a
    work.b = np.asfortranarray(work.b) if args.layout[1] == "F" else work.b
    times = times_in_turns(Queue(device), impl, candidates, work, args.rounds,
                           reps=args.reps)
    medians = [statistics.median(t) if t else None for t in times]
    best = min(t for t in medians if t is not None)
    for (rows, columns), median in zip(tiles, medians):
        line = f"  tile {rows:2d} x {columns:3d}  "
        if median is None:
            print(line + "failed", flush=True)
            continue
        gbs = size[1] * size[2] * 4 / median / 1e6
        print(line + f"{median:8.3f} ms  {median / best:5.2f}x the fastest  B at "
              f"{gbs:5.1f} GB/s", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"size": size, "layout": args.layout, "model": model, "groups": groups,
                       "rounds": args.rounds,
                       "tiles": [{"tile": t, "params": c, "times_ms": x}
                                 for t, c, x in zip(tiles, candidates, times)]}, f, indent=1)


if __name__ == "__main__":
    main()
