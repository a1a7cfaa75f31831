"""The threaded host GEMM: OpenMP-style partitions of C = A @ B over
:func:`portgemm.parallel.parallel_for`.

The tile bodies are numba kernels compiled with ``nogil=True``, so the threads really run
in parallel despite the GIL. ``parallel_for`` and its schedules live in
:mod:`portgemm.parallel` (importing them from here still works, with a
DeprecationWarning).
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from .. import parallel
from ..errors import ParameterError
from ..parallel import is_int, resolve_loop
from .jit import prefer_wide_vectors
from .serial import contiguous_operands, jit_kernel

__all__ = ["PARTITIONS", "gemm_threads"]

PARTITIONS = ("rows", "collapse", "atomic", "numpy")
_MOVED = ("SCHEDULES", "parallel_for", "parse_schedule", "runtime_schedule",
          "schedule_pieces", "default_num_threads")


def __getattr__(name: str):
    if name in _MOVED:
        warnings.warn(f"portgemm.backends.threads.{name} moved to portgemm.parallel.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(parallel, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------- GEMM kernels

# The micro-kernel computes a 4x6 tile of C as 24 dot products along K. With B
# packed transposed, all ten operand rows are unit-stride in K, so LLVM turns
# each scalar sum into one SIMD accumulator (fastmath allows the reassociation)
# and the tile stays in registers for the whole K loop: 24 accumulators plus
# operands just fit AVX-512's 32 registers; 4x6 beat 4x4 by about 10%.
TILE_M, TILE_N = 4, 6
# Cache blocking (GOTO-style) of one kernel call: a K panel of PANEL_BYTES per
# row (1024 float32, 512 float64); ROW_BLOCK rows of A over that panel stay in
# L2 while PANEL_N rows of B^T stream past them, and each 4-row strip of A and
# the 6 rows of B^T of a tile stay in L1. A long K panel amortises the
# horizontal sums that close every tile.
PANEL_BYTES = 4096
PANEL_N = 96  # a multiple of TILE_N, so only the last panel has an edge
ROW_BLOCK = 64


@jit_kernel
def _tile_4x6(a, bt, c, i, j, k0, k1):
    """c[i:i+4, j:j+6] += a[i:i+4, k0:k1] @ bt[j:j+6, k0:k1].T"""
    # Row views indexed from 0 let LLVM prove indices are non-negative; with
    # offsets it must keep numba's negative-index wraparound and emits gathers.
    prefer_wide_vectors()
    a0, a1, a2, a3 = a[i, k0:k1], a[i + 1, k0:k1], a[i + 2, k0:k1], a[i + 3, k0:k1]
    b0, b1, b2 = bt[j, k0:k1], bt[j + 1, k0:k1], bt[j + 2, k0:k1]
    b3, b4, b5 = bt[j + 3, k0:k1], bt[j + 4, k0:k1], bt[j + 5, k0:k1]
    zero = c.dtype.type(0)  # a bare 0.0 would promote float32 sums to float64
    c00 = c01 = c02 = c03 = c04 = c05 = c10 = c11 = c12 = c13 = c14 = c15 = zero
    c20 = c21 = c22 = c23 = c24 = c25 = c30 = c31 = c32 = c33 = c34 = c35 = zero
    for k in range(k1 - k0):
        x0, x1, x2, x3 = a0[k], a1[k], a2[k], a3[k]
        y0, y1, y2, y3, y4, y5 = b0[k], b1[k], b2[k], b3[k], b4[k], b5[k]
        c00 += x0 * y0; c01 += x0 * y1; c02 += x0 * y2; c03 += x0 * y3; c04 += x0 * y4; c05 += x0 * y5  # noqa: E702,E501
        c10 += x1 * y0; c11 += x1 * y1; c12 += x1 * y2; c13 += x1 * y3; c14 += x1 * y4; c15 += x1 * y5  # noqa: E702,E501
        c20 += x2 * y0; c21 += x2 * y1; c22 += x2 * y2; c23 += x2 * y3; c24 += x2 * y4; c25 += x2 * y5  # noqa: E702,E501
        c30 += x3 * y0; c31 += x3 * y1; c32 += x3 * y2; c33 += x3 * y3; c34 += x3 * y4; c35 += x3 * y5  # noqa: E702,E501
    _add_row(c, i, j, c00, c01, c02, c03, c04, c05)
    _add_row(c, i + 1, j, c10, c11, c12, c13, c14, c15)
    _add_row(c, i + 2, j, c20, c21, c22, c23, c24, c25)
    _add_row(c, i + 3, j, c30, c31, c32, c33, c34, c35)


@jit_kernel
def _add_row(c, i, j, v0, v1, v2, v3, v4, v5):
    row = c[i, j:j + TILE_N]
    row[0] += v0; row[1] += v1; row[2] += v2; row[3] += v3; row[4] += v4; row[5] += v5  # noqa: E702


@jit_kernel
def _dot_element(a, bt, c, i, j, k0, k1):
    """c[i, j] += a[i, k0:k1] @ bt[j, k0:k1]: the edges the 4x6 tiles leave over."""
    x = a[i, k0:k1]
    y = bt[j, k0:k1]
    total = c.dtype.type(0)
    for k in range(k1 - k0):
        total += x[k] * y[k]
    c[i, j] += total


@jit_kernel
def _accumulate_rows(a, bt, c, i0, i1, k0, k1):
    """c[i0:i1] += a[i0:i1, k0:k1] @ bt[:, k0:k1].T, cache-blocked, 4x6 register tiles."""
    prefer_wide_vectors()  # where the tiles are inlined and vectorised
    n = bt.shape[0]
    panel_k = PANEL_BYTES // a.itemsize
    for kp in range(k0, k1, panel_k):
        kq = min(k1, kp + panel_k)
        for ip in range(i0, i1, ROW_BLOCK):
            iq = min(i1, ip + ROW_BLOCK)
            i_tiled = ip + (iq - ip) // TILE_M * TILE_M
            for jp in range(0, n, PANEL_N):
                jq = min(n, jp + PANEL_N)
                j_tiled = jp + (jq - jp) // TILE_N * TILE_N
                for i in range(ip, i_tiled, TILE_M):
                    for j in range(jp, j_tiled, TILE_N):
                        _tile_4x6(a, bt, c, i, j, kp, kq)
                    for j in range(j_tiled, jq):
                        for ii in range(i, i + TILE_M):
                            _dot_element(a, bt, c, ii, j, kp, kq)
                for i in range(i_tiled, iq):
                    for j in range(jp, jq):
                        _dot_element(a, bt, c, i, j, kp, kq)


@jit_kernel
def _transpose_rows(b, bt, j0, j1):
    """bt[j0:j1] = b[:, j0:j1].T in 32x32 tiles, so both sides stay cache-resident."""
    k_len = b.shape[0]
    for jb in range(j0, j1, 32):
        je = min(j1, jb + 32)
        for kb in range(0, k_len, 32):
            width = min(k_len, kb + 32) - kb
            for j in range(jb, je):
                out = bt[j, kb:kb + width]
                for k in range(width):
                    out[k] = b[kb + k, j]


# ----------------------------------------------------------------------- GEMM driver


def gemm_threads(a, b, *, partition: str = "rows", schedule: str = "static",
                 chunk: int | None = None, num_threads: int | None = None,
                 block: int = 64) -> np.ndarray:
    """C = A @ B on host threads via :func:`parallel_for`; float32 or float64.

    The loop index is a block of ``block`` rows of C (``partition="rows"`` and
    ``"numpy"``) or a pair (row block, K block of ``block``) (``"collapse"`` and
    ``"atomic"``, in the order of OpenMP's ``collapse(2)`` over i then k).
    ``schedule``, ``chunk`` and ``num_threads`` are passed to ``parallel_for``
    and count in those indices.

    partition:
      * ``"rows"``: each piece computes whole rows of C; no sharing, no sync.
      * ``"collapse"``: (row block, K block) pairs; each thread accumulates into
        its own private C and the private Cs are summed at the end (an OpenMP
        array reduction). Costs a C per thread.
      * ``"atomic"``: (row block, K block) pairs accumulate into the shared C,
        each update holding that row block's lock (the analogue of ``omp
        atomic``). Slow by design: it is the comparison point showing what
        synchronised updates of a shared C cost.
      * ``"numpy"``: each piece runs ``a[rows] @ b`` with numpy (which releases
        the GIL). numpy's BLAS may be multi-threaded itself, so this can
        oversubscribe the cores; set its own thread count for a fair test.

    The other partitions first pack B transposed (in parallel, static) and run
    the numba micro-kernel, which releases the GIL.
    """
    if partition not in PARTITIONS:
        raise ParameterError(f"unknown partition {partition!r}; valid: {', '.join(PARTITIONS)}")
    if not is_int(block) or block < 1:
        raise ParameterError(f"block must be an integer >= 1, got {block!r}")
    a, b = contiguous_operands(a, b)
    # Validate the loop arguments now, before any allocation or packing.
    _, schedule, chunk, num_threads = resolve_loop(0, schedule, chunk, num_threads)
    loop = dict(schedule=schedule, chunk=chunk, num_threads=num_threads)
    m, k_len = a.shape
    n = b.shape[1]
    row_blocks = -(-m // block)

    def rows_of(first_block: int, stop_block: int) -> tuple[int, int]:
        return first_block * block, min(m, stop_block * block)

    if partition == "numpy":
        c = np.empty((m, n), dtype=a.dtype)

        def numpy_rows(start, stop):
            r0, r1 = rows_of(start, stop)
            np.matmul(a[r0:r1], b, out=c[r0:r1])

        parallel.parallel_for(row_blocks, numpy_rows, **loop)
        return c

    bt = _pack_transposed(b, block, num_threads)
    if partition == "rows":
        c = np.zeros((m, n), dtype=a.dtype)

        def row_range(start, stop):
            _accumulate_rows(a, bt, c, *rows_of(start, stop), 0, k_len)

        parallel.parallel_for(row_blocks, row_range, **loop)
        return c

    k_blocks = -(-k_len // block)

    def pairs(start, stop):
        """Yield (row range, K range) for collapsed indices start..stop-1."""
        for index in range(start, stop):
            row_block, k_block = divmod(index, k_blocks)
            yield rows_of(row_block, row_block + 1), (k_block * block, min(k_len, (k_block + 1) * block))

    if partition == "atomic":
        c = np.zeros((m, n), dtype=a.dtype)
        row_locks = [threading.Lock() for _ in range(row_blocks)]

        def locked_update(start, stop):
            for (r0, r1), (k0, k1) in pairs(start, stop):
                with row_locks[r0 // block]:
                    _accumulate_rows(a, bt, c, r0, r1, k0, k1)

        parallel.parallel_for(row_blocks * k_blocks, locked_update, **loop)
        return c

    # collapse: one private C per thread that ran a piece, reduced afterwards.
    private: dict[int, np.ndarray] = {}
    private_lock = threading.Lock()

    def private_update(start, stop):
        me = threading.get_ident()
        with private_lock:
            if me not in private:
                private[me] = np.zeros((m, n), dtype=a.dtype)
            mine = private[me]
        for (r0, r1), (k0, k1) in pairs(start, stop):
            _accumulate_rows(a, bt, mine, r0, r1, k0, k1)

    parallel.parallel_for(row_blocks * k_blocks, private_update, **loop)
    partials = list(private.values())
    if not partials:  # K or M is 0: nothing ran
        return np.zeros((m, n), dtype=a.dtype)
    total = partials[0]

    def reduce_rows(start, stop):
        r0, r1 = rows_of(start, stop)
        for other in partials[1:]:
            np.add(total[r0:r1], other[r0:r1], out=total[r0:r1])

    if len(partials) > 1:
        parallel.parallel_for(row_blocks, reduce_rows, schedule="static", num_threads=num_threads)
    return total


_scratch = threading.local()
KEPT_PACKING_BYTES = 64 << 20  # a larger B^T is packed into a fresh array, not kept
CACHE_LINE = 64  # bytes


def _packing_buffer(shape: tuple[int, int], dtype: np.dtype) -> np.ndarray:
    """An array of ``shape`` for B^T, reused by the calling thread's later calls (each
    thread keeps its largest, up to KEPT_PACKING_BYTES). A fresh 16 MB array a call cost
    ~1500 page faults at 2048^2, 20-50 ms of system time on a 2-core VM against ~100 ms
    of computing."""
    nbytes = shape[0] * shape[1] * dtype.itemsize
    if nbytes > KEPT_PACKING_BYTES:
        return np.empty(shape, dtype)
    buffer = getattr(_scratch, "buffer", None)
    if buffer is None or buffer.nbytes < nbytes:
        buffer = _scratch.buffer = np.empty(nbytes, np.uint8)
    return buffer[:nbytes].view(dtype).reshape(shape)


def _packed_row_length(k_len: int, itemsize: int) -> int:
    """Elements a row of the packed B^T takes: K, plus a cache line where K's bytes are a
    multiple of 1 KiB, so the six rows a 4 x 6 tile reads at the same k fall in six
    different sets of the L1 cache rather than one: one thread's call at 2048 took
    225-234 ms in eight processes against 240-247 with rows 8 KiB apart
    (bench/results/2026-11-22-cpu-threads-pitch)."""
    return k_len + (CACHE_LINE // itemsize if (k_len * itemsize) % 1024 == 0 else 0)


def _pack_transposed(b: np.ndarray, block: int, num_threads: int) -> np.ndarray:
    """B^T as a C-contiguous array whose rows may run past K (unread padding: see
    _packed_row_length), the columns of B split over the threads."""
    k_len, n = b.shape
    bt = _packing_buffer((n, _packed_row_length(k_len, b.itemsize)), b.dtype)

    def pack(start, stop):
        _transpose_rows(b, bt, start * block, min(n, stop * block))

    parallel.parallel_for(-(-n // block), pack, schedule="static", num_threads=num_threads)
    return bt
