"""Paired A/B of ways to run a packing family on one OpenCL device, each a change to
auto's choice for the shape: by default the ways it reads its operands (panel: PACKED x
PACK_A; vec: PACKED), else the --way ones. The ways run in turn, the order rotating
every round, so that a shared machine's drift falls on all of them alike. Prints each
way's median kernel time per shape, its median time ratio to the first way per round,
its share of numpy's time in the same run, and its relative error against float64.

    python bench/packing_ab.py --device opencl:cpu:0 --sizes 4096x64x4096,64x4096x4096
    python bench/packing_ab.py --device opencl:cpu:1 --variant vec --rounds 5
    python bench/packing_ab.py --sizes 64x4096x4096 --way 'auto={}' --way 'KC 128={"KC": 128}'
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.bench.runner import parse_sizes

WAYS = {"panel": {"both": dict(PACKED=1, PACK_A=1), "B only": dict(PACKED=1, PACK_A=0),
                  "A only": dict(PACKED=0, PACK_A=1), "neither": dict(PACKED=0, PACK_A=0)},
        "vec": {"B packed": dict(PACKED=1), "in place": dict(PACKED=0)}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="opencl:cpu:0")
    parser.add_argument("--variant", default="panel", choices=sorted(WAYS))
    parser.add_argument("--sizes", default="4096x64x4096,64x4096x4096,4096x256x4096")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--way", action="append", default=[], metavar="LABEL=JSON",
                        help="parameters changed from auto's choice (repeatable)")
    args = parser.parse_args()
    os.environ.pop("OPENBLAS_CORETYPE", None)  # numpy's BLAS at its full speed
    device = portgemm.select_device(args.device)
    print(device.description)
    ways = {label: json.loads(change) for label, change in
            (way.split("=", 1) for way in args.way)} or WAYS[args.variant]
    for m, n, k in parse_sizes(args.sizes):
        choice = choose(device, m, n, k, np.dtype(args.dtype).itemsize)
        base = choice.params if choice.variant == args.variant else {}
        rng = np.random.default_rng(m + n + k)
        a = rng.uniform(-1, 1, (m, k)).astype(args.dtype)
        b = rng.uniform(-1, 1, (k, n)).astype(args.dtype)
        configs = {name: dict(base, **way) for name, way in ways.items()}
        exact = a.astype(np.float64) @ b.astype(np.float64)
        errors = {}
        for name, params in configs.items():  # build, warm up, and the error
            c = portgemm.gemm(a, b, device=device, variant=args.variant, params=params).c
            errors[name] = np.linalg.norm(c - exact) / np.linalg.norm(exact)
        names = list(configs)
        times = {name: [] for name in names}
        numpy_ms = []
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(portgemm.gemm(a, b, device=device, variant=args.variant,
                                                 params=configs[name]).kernel_ms)
            start = time.perf_counter()
            a @ b
            numpy_ms.append((time.perf_counter() - start) * 1e3)
        ref = statistics.median(numpy_ms)
        print(f"{m}x{n}x{k} (auto: {choice.variant} {base}; numpy {ref:.2f} ms)")
        for name in names:
            ms = statistics.median(times[name])
            ratio = statistics.median(t / f for t, f in zip(times[name], times[names[0]]))
            print(f"  {name:12s} {ms:9.3f} ms  {ratio:5.2f}x the first  "
                  f"{100 * ref / ms:6.1f}% of numpy  error {errors[name]:.1e}")


if __name__ == "__main__":
    main()
