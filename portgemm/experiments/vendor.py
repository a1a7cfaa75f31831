"""The vendor library a device is compared with, in the same run: cuBLAS (through torch,
CUDA events, TF32 off) beside an NVIDIA GPU when torch sees CUDA, numpy's BLAS otherwise
(wall time of ``a @ b``: on a CPU that is the library's whole call)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..bench.references import time_cublas


@dataclass(frozen=True)
class Vendor:
    name: str                                  # "cublas" or "numpy"
    timed: str                                 # "kernel" (events) or "wall"
    product: Callable[[np.ndarray, np.ndarray], np.ndarray]  # C, for the float64 check
    # (a, b, reps) -> median ms; None: time the product calls themselves (numpy)
    timer: Callable[[np.ndarray, np.ndarray, int], float] | None = None


def _numpy_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a @ b


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _cublas_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    return (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy()


def _cublas_ms(a: np.ndarray, b: np.ndarray, reps: int) -> float:
    return time_cublas(a, b, reps=max(reps, 10), warmup=3).ms


def vendor_for(device: Any) -> Vendor:
    """cuBLAS for a GPU when torch has CUDA (the bench's rule), else numpy."""
    if getattr(device, "type", "") == "gpu" and _cuda_available():
        return Vendor("cublas", "kernel", _cublas_product, _cublas_ms)
    return Vendor("numpy", "wall", _numpy_product)


def wall(call: Callable[[], Any]) -> tuple[Any, float]:
    """(result, ms) of one call."""
    start = time.perf_counter()
    out = call()
    return out, (time.perf_counter() - start) * 1e3
