"""The operands each report multiplied, and their float64 products (the check).

"uniform": independent values in [0, 1), as the oneAPI report drew them (rand() /
RAND_MAX); the other reports do not say, so they get the same. "004": the CUDA lab's
closed forms, a_ij = (i - 0.1 j + 1) / (i + j + 1) and
b_ij = (j - 0.2 i + 1)(i + j + 1) / (i^2 + j^2 + 1), with i, j counted from 0.
"001": the PHVM paper's U(-1, 1), with B stored column-major, the paper's layout (a
column of B, the vertical vector of an inner product, is contiguous).

Operands and references are remembered for the last size or two only (at the reports'
largest size, 16384, one float64 reference is 2 GiB); portgemm.clear_caches() drops them.
"""

from __future__ import annotations

import numpy as np

from ..caches import memoize
from ..verify import reference as float64_product

SEED = 2026  # the same operands in every run, so reruns compare like with like


def _uniform(m: int, n: int, k: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    return rng.random((m, k), dtype=dtype), rng.random((k, n), dtype=dtype)


def _lab004(m: int, n: int, k: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    def grid(rows, cols):
        i = np.arange(rows, dtype=np.float64)[:, None]
        j = np.arange(cols, dtype=np.float64)[None, :]
        return i, j

    i, j = grid(m, k)
    a = (i - 0.1 * j + 1) / (i + j + 1)
    i, j = grid(k, n)
    b = (j - 0.2 * i + 1) * (i + j + 1) / (i * i + j * j + 1)
    return a.astype(dtype), b.astype(dtype)


def _paper001(m: int, n: int, k: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    a = rng.random((m, k), dtype=dtype)
    bt = rng.random((n, k), dtype=dtype)  # B's columns as rows: B = bt.T, no copy
    for x in (a, bt):  # in place: at the paper's K an operand is gigabytes
        x *= 2
        x -= 1
    return a, bt.T


GENERATORS = {"uniform": _uniform, "004": _lab004, "001": _paper001}


@memoize(maxsize=2)
def operands(kind: str, size: tuple[int, int, int],
             dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    """(A, B) in ``dtype`` (the experiment's) for a point of size (M, N, K)."""
    m, n, k = size
    # Shared by every point of the size; left writable, since numba compiles a separate
    # (uncached) specialisation for read-only arrays, which the first timed call would pay.
    return GENERATORS[kind](m, n, k, dtype)


@memoize(maxsize=1)
def reference(kind: str, size: tuple[int, int, int], dtype: str = "float32") -> np.ndarray:
    """A @ B in float64, computed once per size and shared by every point of that size."""
    return float64_product(*operands(kind, size, dtype))
