"""Reference libraries timed in the same run as portgemm: numpy (OpenBLAS/MKL) on the host,
cuBLAS through torch when a CUDA device is present, CLBlast through pyclblast (when
installed) on the same OpenCL device."""

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


def numpy_call_ms(a: np.ndarray, b: np.ndarray):
    """A function that runs ``a @ b`` once and returns its wall time in ms: what the bench
    calls between portgemm's runs of a case on a CPU, so that both see the same load."""
    def call() -> float:
        start = time.perf_counter()
        a @ b
        return (time.perf_counter() - start) * 1e3

    return call


def time_numpy(a: np.ndarray, b: np.ndarray, reps: int, warmup: int) -> ReferenceTiming:
    """Median wall time of ``a @ b`` (numpy's BLAS, threads as it is configured).

    At least 3 warm-ups and 10 runs: a BLAS's first calls start its threads, and a
    small product's time is easily disturbed.
    """
    warmup, reps = max(warmup, 3), max(reps, 10)
    call = numpy_call_ms(a, b)
    for _ in range(warmup):
        call()
    return ReferenceTiming("numpy", statistics.median(call() for _ in range(reps)))


def cuda_torch():
    """torch with CUDA, its float32 products in full float32 (TF32 off), or None."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    return torch


def time_cublas(a: np.ndarray, b: np.ndarray, reps: int, warmup: int, *,
                queued: bool = False) -> ReferenceTiming | None:
    """Median cuBLAS time through torch (CUDA events, TF32 off), or None without CUDA.
    Each call is waited for before the next, unless ``queued`` (calls back to back)."""
    torch = cuda_torch()
    if torch is None:
        return None
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for _ in range(warmup):
        ta @ tb
    pairs = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        ta @ tb
        end.record()
        if not queued:
            end.synchronize()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return ReferenceTiming("cublas", statistics.median(s.elapsed_time(e) for s, e in pairs))


def time_clblast(a: np.ndarray, b: np.ndarray, device, reps: int,
                 warmup: int) -> ReferenceTiming | None:
    """Median time of CLBlast's SGEMM/DGEMM on ``device`` through pyclblast, or None
    when pyclblast is not installed or fails there.

    CLBlast may launch helper kernels (transposes, padding copies) and returns only the
    last one's event, so the time is the host's span from a drained queue to that event's
    completion: the whole call, not one kernel.
    """
    try:
        import pyclblast
        import pyopencl.array as cla
    except ImportError:
        return None
    from ..runtime.queue import Queue

    queue = Queue.for_device(device).cl_queue
    m, k = a.shape
    n = b.shape[1]
    try:
        buf_a = cla.to_device(queue, np.ascontiguousarray(a))
        buf_b = cla.to_device(queue, np.ascontiguousarray(b))
        buf_c = cla.empty(queue, (m, n), a.dtype)
        times = []
        for i in range(warmup + reps):
            queue.finish()
            start = time.perf_counter()
            pyclblast.gemm(queue, m, n, k, buf_a, buf_b, buf_c, a_ld=k, b_ld=n, c_ld=n).wait()
            if i >= warmup:
                times.append((time.perf_counter() - start) * 1e3)
    except Exception:  # a CLBlast or driver error: no reference, not a failed bench
        return None
    return ReferenceTiming("clblast", statistics.median(times))
