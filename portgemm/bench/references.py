"""Reference libraries timed in the same run as portgemm: numpy (OpenBLAS/MKL) on the host,
cuBLAS through torch when a CUDA device is present."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ReferenceTiming:
    library: str
    ms: float  # median over the repetitions

    def gflops(self, m: int, n: int, k: int) -> float:
        return 2.0 * m * n * k / (self.ms * 1e6)


def time_numpy(a: np.ndarray, b: np.ndarray, reps: int, warmup: int) -> ReferenceTiming:
    """Median wall time of ``a @ b`` (numpy's BLAS, threads as it is configured).

    At least 3 warm-ups and 10 runs: a BLAS's first calls start its threads, and a
    small product's time is easily disturbed.
    """
    warmup, reps = max(warmup, 3), max(reps, 10)
    for _ in range(warmup):
        a @ b
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        a @ b
        times.append((time.perf_counter() - start) * 1e3)
    return ReferenceTiming("numpy", statistics.median(times))


def time_cublas(a: np.ndarray, b: np.ndarray, reps: int, warmup: int) -> ReferenceTiming | None:
    """Median cuBLAS time through torch (CUDA events, TF32 off), or None without CUDA."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for _ in range(warmup):
        ta @ tb
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        ta @ tb
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return ReferenceTiming("cublas", statistics.median(times))
