"""How portgemm decides a GEMM result is right: relative error against float64."""

from __future__ import annotations

import numpy as np


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A @ B computed in float64."""
    return a.astype(np.float64) @ b.astype(np.float64)


def relative_error(c: np.ndarray, ref: np.ndarray) -> float:
    """||C - ref|| / ||ref|| (Frobenius); a NaN anywhere in C (a poisoned, unwritten
    element) makes it NaN, which fails every comparison with a tolerance. Both are
    scaled by ref's largest magnitude first: norms square their values, so float64 past
    1e154 overflowed (NaN for a right C) and below 1e-154 underflowed (0 for a wrong
    one)."""
    if np.shape(c) != np.shape(ref):  # broadcasting would compare a row with all of C
        raise ValueError(f"C of shape {np.shape(c)} against a reference of shape "
                         f"{np.shape(ref)}")
    scale = float(np.max(np.abs(ref), initial=0.0))
    scale = scale if 0 < scale < np.inf else 1.0
    norm = np.linalg.norm(ref / scale)
    error = np.linalg.norm((np.asarray(c, np.float64) - ref) / scale)
    return float(error / (norm if norm else 1.0))


def tolerance(dtype, k: int) -> float:
    """Relative error a correct GEMM stays under: rounding grows about like sqrt(K).
    TypeError for a dtype without rounding (integers)."""
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"a tolerance is for float32 or float64, got {np.dtype(dtype)}")
    eps = np.finfo(dtype).eps
    return 16 * eps * max(1.0, float(np.sqrt(k)))


def is_correct(c: np.ndarray, ref: np.ndarray, k: int) -> bool:
    return relative_error(c, ref) <= tolerance(c.dtype, k)
