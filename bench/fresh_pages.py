"""What a fresh C costs: calls that keep every result (each new C on memory the process
never had) against calls that drop it (the freed memory reused), for numpy and for
portgemm, with numpy's huge-page advice (madvise, its default on Linux) on and off.

    python bench/fresh_pages.py [--device intel] [--size 4096x4096x64] [--reps 6]

Where the two sides differ, a benchmark that keeps one side's outputs and drops the
other's is not a fair race (portgemm.bench.runner.times_only).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

import portgemm
from portgemm.bench.runner import parse_sizes


def median_ms(call, reps: int, keep: bool) -> float:
    kept, times = [], []
    for _ in range(reps):
        start = time.perf_counter()
        c = call()
        times.append((time.perf_counter() - start) * 1e3)
        if keep:
            kept.append(c)
    return statistics.median(times)


SIDES = ("numpy a @ b", "portgemm.matmul")


def one(args) -> float:
    """One side in one mode, in a process of its own: each starts from the same memory."""
    from numpy._core.multiarray import _set_madvise_hugepage

    _set_madvise_hugepage(bool(args.huge))
    (m, n, k), = parse_sizes(args.size)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    device = portgemm.select_device(args.device)
    call = {"numpy a @ b": lambda: a @ b,
            "portgemm.matmul": lambda: portgemm.matmul(a, b, device=device)}[args.one]
    call()  # builds the kernel, starts numpy's threads
    return median_ms(call, args.reps, keep=bool(args.keep))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--size", default="4096x4096x64")
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--one", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--keep", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--huge", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(one(args))
        return
    (m, n, k), = parse_sizes(args.size)
    device = portgemm.select_device(args.device)
    print(f"{device.description}, {m}x{n}x{k}, C of {m * n * 4 / 2**20:.0f} MiB; median "
          f"wall ms of {args.reps} calls, each side and mode in a fresh process")
    for huge in (1, 0):
        for name in SIDES:
            times = {}
            for keep in (1, 0):
                command = [sys.executable, __file__, "--one", name, "--keep", str(keep),
                           "--huge", str(huge), "--size", args.size, "--reps",
                           str(args.reps)] + (["--device", args.device] if args.device else [])
                times[keep] = float(subprocess.run(command, capture_output=True, text=True,
                                                   check=True).stdout.split()[-1])
            print(f"  huge-page advice {'on ' if huge else 'off'}  {name:16s} "
                  f"kept {times[1]:8.2f}  dropped {times[0]:8.2f}", flush=True)


if __name__ == "__main__":
    main()
