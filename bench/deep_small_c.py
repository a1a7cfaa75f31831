"""A deep K under a small C on a CPU: tallskinny (its bandwidth model's parameters) against
panel (the model's), kernel time, in turn, numpy timed beside them; the edge
``portgemm/auto/shapes.py: CPU_DEEP_SIDE`` draws between them.

    python bench/deep_small_c.py [--device intel] [--rounds 3] --sizes 64x64x8192,256x256x8192
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import portgemm
from portgemm.bench.runner import SETTLE_S, parse_sizes

VARIANTS = ("tallskinny", "panel")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--sizes", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3, help="timed calls a block")
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    rng = np.random.default_rng(0)
    for m, n, k in parse_sizes(args.sizes):
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        times = {name: [] for name in VARIANTS + ("numpy",)}
        for name in VARIANTS:  # builds
            portgemm.gemm(a, b, device=device, variant=name)
        for _ in range(args.rounds):
            for name in VARIANTS:
                time.sleep(SETTLE_S)
                portgemm.gemm(a, b, device=device, variant=name)
                times[name] += [portgemm.gemm(a, b, device=device, variant=name).kernel_ms
                                for _ in range(args.reps)]
            time.sleep(SETTLE_S)
            a @ b
            for _ in range(args.reps):
                start = time.perf_counter()
                a @ b
                times["numpy"].append((time.perf_counter() - start) * 1e3)
        ms = {name: statistics.median(values) for name, values in times.items()}
        print(f"{m:5d}x{n:5d}x{k:6d} tallskinny {ms['tallskinny']:8.3f} panel "
              f"{ms['panel']:8.3f} numpy {ms['numpy']:8.3f}  ts/panel "
              f"{ms['tallskinny'] / ms['panel']:.2f}", flush=True)


if __name__ == "__main__":
    main()
