"""C just past the tall-skinny class (M * N over TALL_SKINNY_OUTPUT, K long): what auto
runs there (the deep-k class's split-K tiles) beside tallskinny with its bandwidth model's
parameters, and cuBLAS, in turns in one process on the same operands (median of 10 after
2 a round, the order rotated each round), kernel time from OpenCL events.

    python3 bench/gpu/class_edge.py [--shapes 17x17x1048576,...] [--dtype float32]
        [--rounds 3] [--json class_edge.json]
"""

from __future__ import annotations

import json

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.tallskinny import tallskinny_params

from group_counts import in_turns, operands, shape_parser
from shapes import copy_bandwidth, cublas_ms

SHAPES = ("16x16x1048576,17x17x1048576,15x20x1048576,7x40x1048576,6x64x1048576,"
          "24x24x1048576,32x32x1048576,48x6x1048576,36x8x1048576,12x32x1048576,"
          "16x64x1048576,64x16x1048576,64x64x1048576,32x32x8388608")


def main():
    p = shape_parser(__doc__, SHAPES, "class_edge.json")
    p.set_defaults(rounds=3)
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    copy = copy_bandwidth(device) if device.type == "gpu" else None
    if copy:
        print(f"copy bandwidth {copy:.0f} GB/s", flush=True)
    rng = np.random.default_rng(0)
    itemsize = np.dtype(args.dtype).itemsize
    rows = []
    for spec in args.shapes.split(","):
        m, n, k = map(int, spec.split("x"))
        a, b = operands(m, n, k, args.dtype, rng)
        chosen = choose(device, m, n, k, itemsize)
        points = {"auto": dict(variant="auto"),
                  "tallskinny": dict(variant="tallskinny",
                                     params=tallskinny_params(device, m, n, k, itemsize)[0])}
        times, med, errors = in_turns(device, a, b, points, args.rounds)
        reference = cublas_ms(a, b)
        gbs = {name: (m + n) * k * itemsize / (t * 1e6) for name, t in med.items()}
        rows.append({"shape": spec, "dtype": args.dtype, "auto": chosen.variant,
                     "auto_reason": chosen.reason, "tallskinny_params": points["tallskinny"]["params"],
                     "rounds_ms": times, "median_ms": med, "cublas_ms": reference,
                     "relerr": errors, "gbs": gbs})
        line = " | ".join(f"{name} {med[name] * 1e3:8.1f} us ({gbs[name]:.0f} GB/s)" for name in med)
        print(f"{spec:<15} auto={chosen.variant:<10} {line} | tallskinny/auto "
              f"{med['auto'] / med['tallskinny']:.2f}x"
              + (f" | cuBLAS {reference * 1e3:.1f} us" if reference else ""), flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "copy_gbs": copy, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
