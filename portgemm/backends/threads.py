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
from .microkernel import MR, NV, lanes, tile_update
from .serial import ikj_update, contiguous_operands, jit_kernel

__all__ = ["BODIES", "PARTITIONS", "check_params", "gemm_threads"]

PARTITIONS = ("rows", "collapse", "atomic", "numpy")
# what one piece of the loop runs: "tile", packed B and the register tile (fast);
# "ikj", the plain i-k-j loop straight on A, B and C (seed 002's OpenMP body)
BODIES = ("tile", "ikj")
_MOVED = ("SCHEDULES", "parallel_for", "parse_schedule", "runtime_schedule",
          "schedule_pieces", "default_num_threads")


def __getattr__(name: str):
    if name in _MOVED:
        warnings.warn(f"portgemm.backends.threads.{name} moved to portgemm.parallel.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(parallel, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------- GEMM kernels

# GOTO/BLIS blocking around the register tile of .microkernel (MR x NR, NR = NV
# vectors): B is packed once into panels of NR columns, K-major (shared by the threads);
# each call packs its rows of A, MC at a time over KC steps of K, into panels of MR rows.
# The tile then reads its B panel (KC x NR: 48 KiB for float32 on AVX-512) from L1/L2 and
# the packed A (MC x KC, 1 MiB) from L2, and adds into C once per KC steps. One thread
# at 2048: 125 GFLOPS with these sizes (KC 128-512 and MC 64-1024 were within 10%).
PANEL_BYTES = 1024  # KC x itemsize
MC = 1024


@jit_kernel
def _pack_b_panels(b, bp, first, stop):
    """Panels first..stop-1 of B into bp: panel p holds B[:, p*NR:(p+1)*NR] K-major (NR
    values a step), zeros past N."""
    prefer_wide_vectors()
    k_len, n = b.shape
    nr = NV * lanes(b.itemsize)
    for p in range(first, stop):
        j0 = p * nr
        width = min(nr, n - j0)
        panel = bp[j0 * k_len:(j0 + nr) * k_len]
        for k in range(k_len):
            step = panel[k * nr:(k + 1) * nr]
            for j in range(width):
                step[j] = b[k, j0 + j]
            for j in range(width, nr):
                step[j] = 0


@jit_kernel
def _pack_a_panels(a, ap, i0, i1, k0, kc):
    """a[i0:i1, k0:k0+kc] into ap in panels of MR rows, K-major (MR values a step), zeros
    past i1."""
    for ip in range(i0, i1, MR):
        panel = ap[(ip - i0) * kc:(ip - i0 + MR) * kc]
        rows = min(MR, i1 - ip)
        for k in range(kc):
            for i in range(rows):
                panel[k * MR + i] = a[ip + i, k0 + k]
            for i in range(rows, MR):
                panel[k * MR + i] = 0


@jit_kernel
def _accumulate_rows(a, bp, c, i0, i1, k0, k1):
    """c[i0:i1] += a[i0:i1, k0:k1] @ B[k0:k1], B packed by _pack_b_panels into bp."""
    k_len = a.shape[1]
    n = c.shape[1]
    nr = NV * lanes(a.itemsize)
    panel_k = PANEL_BYTES // a.itemsize
    block_rows = min(MC, i1 - i0)
    ap = np.empty(-(-block_rows // MR) * MR * min(panel_k, max(0, k1 - k0)), a.dtype)
    edge = np.empty(MR * nr, c.dtype)  # a tile past C's last row or column
    for kp in range(k0, k1, panel_k):
        kc = min(panel_k, k1 - kp)
        for ic in range(i0, i1, MC):
            ie = min(i1, ic + MC)
            _pack_a_panels(a, ap, ic, ie, kp, kc)
            for jp in range(0, n, nr):
                b_at = jp * k_len + kp * nr
                for ip in range(ic, ie, MR):
                    a_at = (ip - ic) * kc
                    if ip + MR <= ie and jp + nr <= n:
                        tile_update(ap, a_at, bp, b_at, kc, c, ip * n + jp, n)
                    else:
                        edge[:] = 0
                        tile_update(ap, a_at, bp, b_at, kc, edge, 0, nr)
                        for i in range(min(MR, ie - ip)):
                            for j in range(min(nr, n - jp)):
                                c[ip + i, jp + j] += edge[i * nr + j]


# ----------------------------------------------------------------------- GEMM driver


def check_params(*, partition: str = "rows", schedule: str = "static",
                 chunk: int | None = None, num_threads: int | None = None,
                 block: int = 64, body: str = "tile") -> dict:
    """ParameterError for a bad :func:`gemm_threads` keyword (before any allocation or
    packing; the host backend checks a call's parameters with it too, an empty one's
    included); returns ``parallel_for``'s loop keywords, resolved."""
    if partition not in PARTITIONS:
        raise ParameterError(f"unknown partition {partition!r}; valid: {', '.join(PARTITIONS)}")
    if body not in BODIES:
        raise ParameterError(f"unknown body {body!r}; valid: {', '.join(BODIES)}")
    if partition == "numpy" and body != "tile":
        raise ParameterError("the numpy partition runs numpy's matmul; body does not "
                             "apply to it")
    if not is_int(block) or block < 1:
        raise ParameterError(f"block must be an integer >= 1, got {block!r}")
    _, schedule, chunk, num_threads = resolve_loop(0, schedule, chunk, num_threads)
    return {"schedule": schedule, "chunk": chunk, "num_threads": num_threads}


def gemm_threads(a, b, *, partition: str = "rows", schedule: str = "static",
                 chunk: int | None = None, num_threads: int | None = None,
                 block: int = 64, body: str = "tile") -> np.ndarray:
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

    body (rows, collapse and atomic; numba kernels that release the GIL):
      * ``"tile"``: B is first packed into column panels (in parallel, static) and each
        piece runs the register tile of :mod:`.microkernel` on them.
      * ``"ikj"``: each piece runs the plain i-k-j loop on A, B and C as they are
        (serial-ikj's range kernel), nothing packed: the loop body of seed 002's OpenMP
        program, ``C[i][j] += A[i][k] * B[k][j]`` over j.
    """
    loop = check_params(partition=partition, schedule=schedule, chunk=chunk,
                        num_threads=num_threads, block=block, body=body)
    a, b = contiguous_operands(a, b)
    num_threads = loop["num_threads"]
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

        parallel.parallel_for(row_blocks, in_callers_errstate(numpy_rows), **loop)
        return c

    if body == "ikj":
        def update(c, r0, r1, k0, k1):
            ikj_update(a, b, c, r0, r1, k0, k1, 0, n)
    else:
        packed_b = _pack_panels(b, num_threads)

        def update(c, r0, r1, k0, k1):
            _accumulate_rows(a, packed_b, c, r0, r1, k0, k1)

    if partition == "rows":
        c = np.zeros((m, n), dtype=a.dtype)

        def row_range(start, stop):
            update(c, *rows_of(start, stop), 0, k_len)

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
                    update(c, r0, r1, k0, k1)

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
            update(mine, r0, r1, k0, k1)

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
        parallel.parallel_for(row_blocks, in_callers_errstate(reduce_rows), schedule="static",
                              num_threads=num_threads)
    return total


def in_callers_errstate(body):
    """``body`` under the calling thread's numpy error handling wherever it runs: numpy's
    errstate is per thread, so a worker's numpy calls (a matmul's overflow) would warn
    under the caller's ``np.errstate(all="ignore")`` and not raise under "raise"."""
    saved = np.geterr()
    call = np.geterrcall()

    def run(start, stop):
        with np.errstate(call=call, **saved):
            body(start, stop)

    return run


_scratch = threading.local()
KEPT_PACKING_BYTES = 64 << 20  # a larger packed B is made fresh, not kept
VECTOR_ALIGN = 64  # bytes: the panels' vector loads never straddle a cache line


def _packing_buffer(count: int, dtype: np.dtype) -> np.ndarray:
    """A 1-D array of ``count`` values starting on a cache line, for the packed B, reused
    by the calling thread's later calls (each thread keeps its largest, up to
    KEPT_PACKING_BYTES). A fresh 16 MB array a call cost ~1500 page faults at 2048^2,
    20-50 ms of system time on a 2-core VM against ~100 ms of computing."""
    nbytes = count * dtype.itemsize + VECTOR_ALIGN
    if nbytes > KEPT_PACKING_BYTES:
        buffer = np.empty(nbytes, np.uint8)
    else:
        buffer = getattr(_scratch, "buffer", None)
        if buffer is None or buffer.nbytes < nbytes:
            buffer = _scratch.buffer = np.empty(nbytes, np.uint8)
    start = -buffer.ctypes.data % VECTOR_ALIGN
    return buffer[start:start + count * dtype.itemsize].view(dtype)


def _pack_panels(b: np.ndarray, num_threads: int) -> np.ndarray:
    """B in panels of NR columns (see _pack_b_panels), the panels split over the threads."""
    k_len, n = b.shape
    width = NV * lanes(b.itemsize)
    panels = -(-n // width)
    bp = _packing_buffer(panels * width * k_len, b.dtype)

    def pack(start, stop):
        _pack_b_panels(b, bp, start, stop)

    parallel.parallel_for(panels, pack, schedule="static", num_threads=num_threads)
    return bp
