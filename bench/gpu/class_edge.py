"""C just past the tall-skinny class (M * N over TALL_SKINNY_OUTPUT, K long): what auto
runs there (the deep-k class's split-K tiles) beside tallskinny with its bandwidth model's
parameters, and cuBLAS, in turns in one process on the same operands (median of 10 after
2 a round, the order rotated each round), kernel time from OpenCL events.

    python3 bench/gpu/class_edge.py [--shapes 17x17x1048576,...] [--dtype float32]
        [--rounds 3] [--json class_edge.json]
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.tallskinny import tallskinny_params

from shapes import copy_bandwidth, cublas_ms, kernel_ms

SHAPES = ("16x16x1048576,17x17x1048576,15x20x1048576,7x40x1048576,6x64x1048576,"
          "24x24x1048576,32x32x1048576,48x6x1048576,36x8x1048576,12x32x1048576,"
          "16x64x1048576,64x16x1048576,64x64x1048576,32x32x8388608")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", default="class_edge.json")
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
        a = rng.uniform(-1, 1, (m, k)).astype(args.dtype)
        b = rng.uniform(-1, 1, (k, n)).astype(args.dtype)
        ref = a.astype(np.float64) @ b
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        chosen = choose(device, m, n, k, itemsize)
        points = {"auto": dict(variant="auto"),
                  "tallskinny": dict(variant="tallskinny",
                                     params=tallskinny_params(device, m, n, k, itemsize)[0])}
        times = {name: [] for name in points}
        errors = {}
        for r in range(args.rounds):
            names = list(points)[r % len(points):] + list(points)[:r % len(points)]
            for name in names:
                ms, result = kernel_ms(a_dev, b_dev, **points[name])
                times[name].append(ms)
                c = result.c.get()
                errors[name] = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        med = {name: statistics.median(t) for name, t in times.items()}
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
