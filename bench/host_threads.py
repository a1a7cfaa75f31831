"""Threaded host GEMM against numpy's ``a @ b`` in the same process.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/host_threads.py
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/host_threads.py --serial --sizes 512 1024

Prints GFLOPS (best timed call over --rounds passes of --repeat calls each) per size, partition and
thread count, the ratio to numpy measured in this run, and the 1 -> 2 thread
speed-up of each partition. With --serial it times the serial reference
algorithms instead (default parameters, best of two calls after a compile).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from portgemm.backends.serial import SERIAL_ALGORITHMS
from portgemm.backends.threads import gemm_threads


def best_seconds(fn, repeat: int, warm_up: float = 0.3) -> float:
    """Best of ``repeat`` back-to-back calls after ``warm_up`` seconds of calls.

    The warm-up covers numba compile/cache load and page faults, and also two
    effects seen on the 2-core VM: OpenBLAS worker threads keep spinning for
    ~0.1 s after a numpy call (taking a core from the next run), and the cores
    are slower for a while after idle gaps of a few tens of milliseconds.
    """
    start = time.perf_counter()
    while time.perf_counter() - start < warm_up:
        fn()
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--partitions", nargs="+", default=["rows", "collapse", "atomic", "numpy"])
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per configuration and round")
    parser.add_argument("--rounds", type=int, default=2, help="passes over all configurations")
    parser.add_argument("--serial", action="store_true", help="time the serial algorithms instead")
    args = parser.parse_args()
    if args.serial:
        serial_table(args)
        return

    rng = np.random.default_rng(0)
    print(f"{'n':>5} {'partition':>9} {'threads':>7} {'GFLOPS':>8} {'vs numpy':>8} {'speed-up':>8}")
    for n in args.sizes:
        a = rng.standard_normal((n, n)).astype(args.dtype)
        b = rng.standard_normal((n, n)).astype(args.dtype)
        runs = {("numpy a@b", "(blas)"): lambda: a @ b}
        for partition in args.partitions:
            for threads in args.threads:
                runs[partition, threads] = (
                    lambda p=partition, t=threads: gemm_threads(a, b, partition=p, num_threads=t))
        # Whole rounds are repeated and each configuration keeps its best, so a
        # slow spell of the shared machine does not decide a row of the table.
        best = {key: float("inf") for key in runs}
        for _ in range(args.rounds):
            for key, fn in runs.items():
                best[key] = min(best[key], best_seconds(fn, args.repeat))
        gflops = {key: 2.0 * n**3 / t / 1e9 for key, t in best.items()}
        reference = gflops["numpy a@b", "(blas)"]
        for (name, threads), value in gflops.items():
            one_thread = gflops.get((name, args.threads[0]), value)
            print(f"{n:>5} {name:>9} {threads!s:>7} {value:8.1f} {value / reference:8.2f} "
                  f"{value / one_thread:8.2f}")


def serial_table(args) -> None:
    rng = np.random.default_rng(0)
    print(f"{'n':>5} {'algorithm':>15} {'seconds':>8} {'GFLOPS':>8}")
    for n in args.sizes:
        a = rng.standard_normal((n, n)).astype(args.dtype)
        b = rng.standard_normal((n, n)).astype(args.dtype)
        for name, (function, _) in SERIAL_ALGORITHMS.items():
            function(a[:8, :8], b[:8, :8])  # compile, or load numba's cache
            seconds = min(best_seconds(lambda: function(a, b), 1, warm_up=0) for _ in range(2))
            print(f"{n:>5} {name:>15} {seconds:8.3f} {2.0 * n**3 / seconds / 1e9:8.1f}")


if __name__ == "__main__":
    main()
