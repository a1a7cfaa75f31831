"""Serial CPU reference GEMMs: the textbook loop orders, jitted with numba.

These are the single-threaded baselines of the seed reports (naive, reordered,
unrolled, blocked, divide-and-conquer, Strassen). They favour clarity over speed;
the fast host path is :mod:`portgemm.backends.threads`.

Every ``gemm_*`` function takes float32/float64 arrays of shapes (M, K) and (K, N)
and returns a new C-ordered (M, N) array of the operands' dtype. The loop kernels
are compiled with ``nogil=True`` so the threaded backend may call them from worker
threads, and cached on disk (:mod:`portgemm.backends.jit`: in the user's cache folder,
never inside the package) so the compile cost is paid once per machine.

All loop kernels work on index ranges of whole C-contiguous arrays instead of on
sliced views: views would be typed as non-contiguous by numba, which stops LLVM
from vectorising the inner loop.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..operands import check_operands
from .jit import cached_njit

__all__ = [
    "SERIAL_ALGORITHMS",
    "check_params",
    "contiguous_operands",
    "gemm_blocked",
    "gemm_divide_conquer",
    "gemm_ijk",
    "gemm_ikj",
    "gemm_strassen",
    "gemm_unroll4",
    "ikj_update",
]

# fastmath lets LLVM reassociate sums, which is what vectorises the reductions.
jit_kernel = cached_njit(nogil=True, fastmath=True)


def contiguous_operands(a, b) -> tuple[np.ndarray, np.ndarray]:
    """:func:`portgemm.operands.check_operands`, then C-contiguous (the loops index rows)."""
    a, b = check_operands(a, b)
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


def _check_positive(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_params(**params) -> dict:
    """ParameterError for a bad keyword of a serial algorithm (each is an integer >= 1:
    block, cutoff), as the algorithm itself checks it; the host backend checks a call's
    parameters with it, an empty product's included."""
    return {name: _check_positive(name, value) for name, value in params.items()}


def _result(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # The kernels accumulate into C, so it starts at zero.
    return np.zeros((a.shape[0], b.shape[1]), dtype=a.dtype)


# --------------------------------------------------------------------------- kernels


@jit_kernel
def _ijk(a, b, c):
    """Naive order: one dot product per element of C; B is walked down a column."""
    m, k_len = a.shape
    n = b.shape[1]
    for i in range(m):
        for j in range(n):
            total = c.dtype.type(0)
            for k in range(k_len):
                total += a[i, k] * b[k, j]
            c[i, j] = total


@jit_kernel
def ikj_update(a, b, c, i0, i1, k0, k1, j0, j1):
    """c[i0:i1, j0:j1] += a[i0:i1, k0:k1] @ b[k0:k1, j0:j1] in i-k-j order.

    The innermost loop runs along rows of B and C, so it is unit-stride and
    vectorises. This range kernel is shared by the reordered, blocked and
    divide-and-conquer algorithms.
    """
    width = j1 - j0
    for i in range(i0, i1):
        c_row = c[i, j0:j1]
        for k in range(k0, k1):
            a_ik = a[i, k]
            b_row = b[k, j0:j1]
            for j in range(width):
                c_row[j] += a_ik * b_row[j]


@jit_kernel
def _ikj_unroll4(a, b, c):
    """i-k-j with the k loop unrolled by 4: each sweep over a row of C applies four
    rank-1 updates, so C is loaded and stored a quarter as often."""
    m, k_len = a.shape
    n = b.shape[1]
    k_main = k_len - k_len % 4
    for i in range(m):
        c_row = c[i]
        for k in range(0, k_main, 4):
            a0 = a[i, k]
            a1 = a[i, k + 1]
            a2 = a[i, k + 2]
            a3 = a[i, k + 3]
            b0 = b[k]
            b1 = b[k + 1]
            b2 = b[k + 2]
            b3 = b[k + 3]
            for j in range(n):
                c_row[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j]
        for k in range(k_main, k_len):  # the K % 4 leftover rank-1 updates
            a_ik = a[i, k]
            b_row = b[k]
            for j in range(n):
                c_row[j] += a_ik * b_row[j]


@jit_kernel
def _blocked(a, b, c, block):
    """Loop tiling: block x block tiles of A, B and C are reused while in cache."""
    m, k_len = a.shape
    n = b.shape[1]
    for i0 in range(0, m, block):
        i1 = min(m, i0 + block)
        for k0 in range(0, k_len, block):
            k1 = min(k_len, k0 + block)
            for j0 in range(0, n, block):
                ikj_update(a, b, c, i0, i1, k0, k1, j0, min(n, j0 + block))


# ------------------------------------------------------------------------ algorithms


def gemm_ijk(a, b) -> np.ndarray:
    """Naive triple loop, i-j-k order (strided walk down the columns of B)."""
    a, b = contiguous_operands(a, b)
    c = _result(a, b)
    _ijk(a, b, c)
    return c


def gemm_ikj(a, b) -> np.ndarray:
    """Reordered triple loop, i-k-j order (unit-stride inner loop)."""
    a, b = contiguous_operands(a, b)
    c = _result(a, b)
    ikj_update(a, b, c, 0, a.shape[0], 0, a.shape[1], 0, b.shape[1])
    return c


def gemm_unroll4(a, b) -> np.ndarray:
    """i-k-j order with the k loop unrolled four ways."""
    a, b = contiguous_operands(a, b)
    c = _result(a, b)
    _ikj_unroll4(a, b, c)
    return c


def gemm_blocked(a, b, block: int = 64) -> np.ndarray:
    """Tiled i-k-j loops with square ``block``-sized tiles in all three dimensions."""
    block = _check_positive("block", block)
    a, b = contiguous_operands(a, b)
    c = _result(a, b)
    _blocked(a, b, c, block)
    return c


def gemm_divide_conquer(a, b, cutoff: int = 64) -> np.ndarray:
    """Recursive halving of the largest of M, N, K until all are <= ``cutoff``.

    Halves are ``size // 2`` and ``size - size // 2``, so odd sizes need no
    padding. Splitting K gives two products that accumulate into the same part
    of C, one after the other. Leaves run the i-k-j range kernel; the recursion
    itself is plain Python, which is cheap next to a cutoff-sized leaf.
    """
    cutoff = _check_positive("cutoff", cutoff)
    a, b = contiguous_operands(a, b)
    c = _result(a, b)

    def solve(i0, i1, k0, k1, j0, j1):
        sizes = (i1 - i0, k1 - k0, j1 - j0)
        largest = max(sizes)
        if largest <= cutoff:
            ikj_update(a, b, c, i0, i1, k0, k1, j0, j1)
        elif sizes[0] == largest:
            mid = i0 + sizes[0] // 2
            solve(i0, mid, k0, k1, j0, j1)
            solve(mid, i1, k0, k1, j0, j1)
        elif sizes[2] == largest:
            mid = j0 + sizes[2] // 2
            solve(i0, i1, k0, k1, j0, mid)
            solve(i0, i1, k0, k1, mid, j1)
        else:
            mid = k0 + sizes[1] // 2
            solve(i0, i1, k0, mid, j0, j1)
            solve(i0, i1, mid, k1, j0, j1)

    solve(0, a.shape[0], 0, a.shape[1], 0, b.shape[1])
    return c


def gemm_strassen(a, b, cutoff: int = 128) -> np.ndarray:
    """Strassen's seven-product recursion; the blocked kernel below ``cutoff``.

    Recursion continues while the smallest of M, K, N exceeds ``cutoff`` (so
    thin products go straight to the blocked kernel). An odd dimension is padded
    with one zero row/column at that level and the padding is sliced off the
    result. Rounding error grows with the recursion depth, more than for the
    plain loops.

    Non-finite input (a NaN or an infinity anywhere in A or B) takes the classical
    product (the blocked kernel) instead: Strassen adds and subtracts whole blocks
    before multiplying, so one NaN reaches every element of C that shares a block
    product with it (one NaN in a 300 x 300 product gave 675 NaNs where numpy has
    300), and an infinity turns into NaNs through inf - inf. The classical product
    poisons exactly the row or column numpy does. So does finite input whose Strassen
    product is not finite: a block sum past the dtype's largest value (entries above
    half of it) overflowed, where the classical product may not (all 65536 elements of
    a 256 x 256 product NaN, where numpy's were finite).
    """
    cutoff = _check_positive("cutoff", cutoff)
    a, b = contiguous_operands(a, b)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return gemm_blocked(a, b)
    c = _strassen(a, b, cutoff)
    return c if np.isfinite(c).all() else gemm_blocked(a, b)


def _strassen(a: np.ndarray, b: np.ndarray, cutoff: int) -> np.ndarray:
    m, k_len = a.shape
    n = b.shape[1]
    if min(m, k_len, n) <= cutoff:
        return gemm_blocked(a, b)
    if m % 2 or k_len % 2 or n % 2:
        padded = _strassen(_pad_even(a), _pad_even(b), cutoff)
        return np.ascontiguousarray(padded[:m, :n])

    h, w, d = m // 2, k_len // 2, n // 2
    a11, a12, a21, a22 = a[:h, :w], a[:h, w:], a[h:, :w], a[h:, w:]
    b11, b12, b21, b22 = b[:w, :d], b[:w, d:], b[w:, :d], b[w:, d:]

    def product(x, y):
        return _strassen(np.ascontiguousarray(x), np.ascontiguousarray(y), cutoff)

    m1 = product(a11 + a22, b11 + b22)
    m2 = product(a21 + a22, b11)
    m3 = product(a11, b12 - b22)
    m4 = product(a22, b21 - b11)
    m5 = product(a11 + a12, b22)
    m6 = product(a21 - a11, b11 + b12)
    m7 = product(a12 - a22, b21 + b22)

    c = np.empty((m, n), dtype=a.dtype)
    c[:h, :d] = m1 + m4 - m5 + m7
    c[:h, d:] = m3 + m5
    c[h:, :d] = m2 + m4
    c[h:, d:] = m1 - m2 + m3 + m6
    return c


def _pad_even(x: np.ndarray) -> np.ndarray:
    """x with a zero row and/or column appended where a dimension is odd."""
    rows, cols = x.shape
    if rows % 2 == 0 and cols % 2 == 0:
        return x
    padded = np.zeros((rows + rows % 2, cols + cols % 2), dtype=x.dtype)
    padded[:rows, :cols] = x
    return padded


#: name -> (function, its tunable keyword parameters with their defaults)
SERIAL_ALGORITHMS = {
    "ijk": (gemm_ijk, {}),
    "ikj": (gemm_ikj, {}),
    "unroll4": (gemm_unroll4, {}),
    "blocked": (gemm_blocked, {"block": 64}),
    "divide_conquer": (gemm_divide_conquer, {"cutoff": 64}),
    "strassen": (gemm_strassen, {"cutoff": 128}),
}
