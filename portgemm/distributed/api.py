"""The distributed entry points: :func:`gemm` (operands on the root) and
:func:`gemm_blocks` (operands already distributed, owner computes).

A call is: agree (every rank states its side; any problem is raised on all ranks alike),
then the partition, under :func:`~.faults.abort_on_error` so that a rank failing past
that point ends the job instead of leaving the others waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..operands import as_array
from ..parallel import is_int
from . import collective, p2p, resident, splitk, summa
from .agreement import Statement, agree, check_waiting, describe_operands
from .clock import Clock
from .context import Run
from .errors import KINDS, PartitionError
from .faults import abort_on_error
from .layout import BlockLayout, GridLayout, process_grid
from .local import LocalSetup, LocalSpec, set_up
from .mpi import local_rank, world
from .result import DistributedResult
from .transport import Transport

# name -> function(run, a, b) -> C (operands and C as each partition's docstring says)
PARTITIONS: dict[str, Callable] = {
    "p2p": p2p.run,
    "rows": collective.rows,
    "2d": collective.grid2d,
    "summa": summa.run,
    "splitk": splitk.run,
}
# the partitions that also take operands already distributed as blocks (numpy or device
# arrays; see gemm_blocks)
BLOCK_PARTITIONS = ("rows", "2d", "summa", "splitk")


def gemm(a: Any = None, b: Any = None, partition: str = "summa", *, comm: Any = None,
         root: int = 0, local: LocalSpec = None, panel: int | None = None,
         overlap: bool = True, wait: str | None = None,
         abort_on_failure: bool = True) -> DistributedResult:
    """C = A @ B over the ranks of ``comm`` (MPI.COMM_WORLD by default), A and B given on
    ``root`` (other ranks pass nothing). Collective: every rank of ``comm`` calls it.

    partition: one of :data:`PARTITIONS`. local: this rank's backend, device, variant and
    parameters (:class:`~.local.LocalOptions`, a dict of its fields, or a function
    (rank, local_rank) -> LocalOptions). panel, overlap: SUMMA's step width and
    communication/computation overlap. wait: "yield" or "spin" (see :mod:`.transport`).
    abort_on_failure: a rank that fails after the opening agreement aborts the job
    (else its exception propagates and the other ranks may wait forever).

    Raises on every rank alike: PartitionError (a ParameterError) for an unknown
    partition or option, ShapeError (a ValueError), OperandTypeError (a TypeError),
    RankSetupError when a rank cannot set up its device; BackendUnavailableError
    without mpi4py.
    """
    comm = world(comm)
    transport, setup, statement = _open(comm, partition, local, wait, PARTITIONS)
    if not is_int(root) or not 0 <= root < transport.size:  # numpy's integers too
        statement.fail("partition", f"root must be a rank of the communicator "
                                    f"(0..{transport.size - 1}), got {root!r}")
    panel = _check_panel(statement, panel)
    if transport.rank == root:
        if resident.is_resident(a, b):
            statement.fail("type", "gemm takes numpy operands on the root; device arrays "
                                   "(resident operands) go to gemm_blocks, one block per "
                                   "rank")
        else:
            a, b = _as_arrays(statement, a, b)
            describe_operands(statement, a, b)
        if statement.shape and statement.problem is None and min(statement.shape) < 1:
            statement.fail("shape", f"every dimension must be >= 1, got (m, n, k) = "
                                    f"{statement.shape}")
    statements = agree(transport, statement)
    root = int(root)  # a plain int for MPI (agreed to be a rank)
    m, n, k = statements[root].shape
    run = Run(transport, setup, m, n, k, np.dtype(statements[root].dtype), root, panel,
              overlap)
    with abort_on_error(comm, abort_on_failure):
        c = PARTITIONS[partition](run, a, b)
    return _result(run, partition, "root", c, None)


def gemm_blocks(a_mine: Any, b_mine: Any, shape: tuple[int, int, int],
                partition: str = "summa", *, comm: Any = None, local: LocalSpec = None,
                panel: int | None = None, overlap: bool = True, wait: str | None = None,
                abort_on_failure: bool = True) -> DistributedResult:
    """C = A @ B with A and B already distributed (owner computes); ``shape`` is the
    whole problem's (m, n, k), the same on every rank.

    ``summa``, ``2d``, ``rows``: rank r holds A[a_block(r)] and B[b_block(r)] of
    ``block_layout(m, n, k, P, partition)``; the result's ``c`` is its block
    C[c_block(r)] (``result.c_block``). For ``2d`` and ``rows`` those blocks hold all of
    K, so the call is the local product alone. ``splitk``: rank r holds A[:, K_r] and
    B[K_r, :] for any split of K (empty slices allowed); ``c`` is all of C, on every rank.

    The blocks may be numpy arrays or device arrays (``pyopencl.array.Array``,
    C-contiguous, offset 0, e.g. from ``portgemm.to_device``; every rank the same kind).
    Device blocks stay where they are: the local products run on them, what must cross
    ranks goes device -> pinned host memory -> MPI -> pinned host memory -> device, and
    ``c`` is a device array on the blocks' queue (the result's ``operands`` is
    "resident"). The rank's local device is then the blocks' (an explicit ``local``
    device must be that one) and its backend must be "opencl".
    """
    comm = world(comm)
    transport, setup, statement = _open(comm, partition, local, wait,
                                        {p: None for p in BLOCK_PARTITIONS}, route=True)
    panel = _check_panel(statement, panel)
    describe_operands(statement, a_mine, b_mine, aligned=partition != "summa")
    a_mine, b_mine = _as_arrays(statement, a_mine, b_mine)
    statement.extra["shape"] = _shape_tuple(statement, shape)
    if statement.problem is None and partition in BLOCK_PARTITIONS:
        _check_blocks(statement, partition, transport, a_mine, b_mine)
    setup = resident.check_blocks(statement, a_mine, b_mine, setup)
    statements = agree(transport, statement)
    _check_agreed_blocks(statements, partition)
    on_device = resident.check_agreed(statements)
    m, n, k = statements[0].extra["shape"]
    run = Run(transport, setup, m, n, k, np.dtype(statements[0].dtype), 0, panel, overlap)
    layout = _layout(partition, m, n, k, transport.size)
    with abort_on_error(comm, abort_on_failure):
        if partition == "summa":
            c = summa.run_blocks(run, a_mine, b_mine, layout)
        elif partition == "splitk":
            c = splitk.run_blocks(run, a_mine, b_mine)
        else:
            c = collective.run_blocks(run, a_mine, b_mine)
    block = layout.c_block(transport.rank) if layout is not None else None
    return _result(run, partition, "resident" if on_device else "blocks", c, block)


def block_layout(m: int, n: int, k: int, ranks: int,
                 partition: str = "summa") -> BlockLayout | GridLayout:
    """Which blocks of A, B and C each rank holds for ``gemm_blocks`` with ``partition``
    "summa" (the default), "2d" or "rows": ``a_block(r)``, ``b_block(r)`` and
    ``c_block(r)`` give rank r's (rows, columns) slices. (``splitk`` takes any split
    of K.)"""
    layout = _layout(partition, m, n, k, ranks)
    if layout is None:
        raise PartitionError(f"block_layout is for 'summa', '2d' and 'rows'; got "
                             f"{partition!r} (splitk takes any split of K)")
    return layout


def _layout(partition: str, m: int, n: int, k: int,
            ranks: int) -> BlockLayout | GridLayout | None:
    if partition == "summa":
        return BlockLayout.for_ranks(m, n, k, ranks)
    if partition in ("rows", "2d"):
        return GridLayout.for_ranks(m, n, k, ranks, partition)
    return None


# --- the pieces -----------------------------------------------------------------------

def _open(comm: Any, partition: Any, local: LocalSpec, wait: str | None, known: dict,
          route: bool = False) -> tuple[Transport, LocalSetup | None, Statement]:
    """Transport, this rank's local setup and its statement so far. Only local work and
    the node split happen here: every problem goes into the statement (``route``: the
    resident route's setting too)."""
    clock = Clock()
    statement = Statement(partition=str(partition))
    transport = Transport(comm, clock, check_waiting(statement, wait, route))
    if partition not in known:
        statement.fail("partition", f"unknown partition {partition!r}; partitions: "
                                    f"{', '.join(known)}")
    setup = None
    node_rank, _ = local_rank(comm)
    try:
        setup = set_up(local, transport.rank, node_rank)
    except Exception as exc:  # reported by the agreement, raised on every rank
        statement.fail("setup", f"cannot set up the local product "
                                f"({type(exc).__name__}: {exc})")
    return transport, setup, statement


def _check_panel(statement: Statement, panel: Any) -> int | None:
    """``panel`` as a plain int (numpy's integers too) or None; a bad one is the
    statement's problem."""
    if panel is None:
        return None
    if not is_int(panel) or panel < 1:
        statement.fail("partition", f"panel must be a positive integer or None, got "
                                    f"{panel!r}")
        return None
    return int(panel)


def _as_arrays(statement: Statement, a: Any, b: Any) -> tuple[Any, Any]:
    """A and B as ``portgemm.matmul`` takes them (``operands.as_array``): device arrays as
    they are, anything else a numpy array in this machine's byte order (MPI moves bytes:
    a byte-swapped block would be read as garbage where it lands). What as_array refuses
    -- a masked array, whose mask np.asarray would silently drop -- is the statement's
    type problem, so that every rank raises it at the agreement (refused only by the
    local product, past it, it aborted the job)."""
    try:
        return as_array(a), as_array(b)
    except TypeError as exc:
        statement.fail("type", str(exc))
    except Exception as exc:
        statement.fail("type", f"operands cannot be read as arrays: {exc}")
    return a, b


def _shape_tuple(statement: Statement, shape: Any) -> tuple[int, int, int] | None:
    try:
        values = tuple(shape)
    except TypeError:
        values = ()
    # integers only: int() would truncate a 4.9 and run a different problem
    if len(values) != 3 or not all(is_int(v) for v in values):
        statement.fail("shape", f"shape must be (m, n, k), three integers, got {shape!r}")
        return None
    m, n, k = (int(v) for v in values)
    if min(m, n, k) < 1:
        statement.fail("shape", f"every dimension must be >= 1, got (m, n, k) = "
                                f"{(m, n, k)}")
    return m, n, k


def _check_blocks(statement: Statement, partition: str, transport: Transport,
                  a_mine: Any, b_mine: Any) -> None:
    """This rank's blocks against the shape it was given (what it can check alone)."""
    shape = statement.extra["shape"]
    if shape is None:
        return
    m, n, k = shape
    layout = _layout(partition, m, n, k, transport.size)
    if layout is not None:
        want_a = _extent(layout.a_block(transport.rank))
        want_b = _extent(layout.b_block(transport.rank))
        if tuple(a_mine.shape) != want_a or tuple(b_mine.shape) != want_b:
            name = "SUMMA" if partition == "summa" else partition
            statement.fail("shape", f"{name} on a {layout.rows}x{layout.cols} grid gives "
                                    f"this rank A{want_a} and B{want_b} blocks, got "
                                    f"{tuple(a_mine.shape)} and {tuple(b_mine.shape)}")
    elif a_mine.shape[0] != m or b_mine.shape[1] != n:
        statement.fail("shape", f"split-K blocks must be A (m={m} x K_r) and B (K_r x "
                                f"n={n}), got {tuple(a_mine.shape)} and "
                                f"{tuple(b_mine.shape)}")


def _check_agreed_blocks(statements: list[Statement], partition: str) -> None:
    """What only the whole list shows: one shape and dtype everywhere, K covered once."""
    shapes = {s.extra["shape"] for s in statements}
    dtypes = {s.dtype for s in statements}
    if len(shapes) > 1 or len(dtypes) > 1:
        said = ", ".join(f"rank {r}: {s.extra['shape']} {s.dtype}"
                         for r, s in enumerate(statements))
        raise KINDS["shape"](f"ranks disagree on the problem's shape or dtype ({said})")
    if partition == "splitk":
        k = statements[0].extra["shape"][2]
        held = sum(s.shape[2] for s in statements)
        if held != k:
            raise KINDS["shape"](f"split-K blocks hold {held} of K = {k} in total; the "
                                 f"K slices of the ranks must add up to K")


def _extent(block: tuple[slice, slice]) -> tuple[int, int]:
    return block[0].stop - block[0].start, block[1].stop - block[1].start


def _result(run: Run, partition: str, operands: str, c: Any,
            block: tuple[slice, slice] | None) -> DistributedResult:
    clock, size = run.clock, run.size
    return DistributedResult(
        partition=partition, operands=operands, rank=run.rank, ranks=size, m=run.m,
        n=run.n, k=run.k, dtype=run.dtype.name, grid=_grid_label(partition, size), c=c,
        c_block=block, comm_ms=clock.comm_ms, compute_ms=clock.compute_ms,
        total_ms=clock.total_ms(), device=run.setup.label, products=run.setup.products,
        local=run.setup.last)


def _grid_label(partition: str, ranks: int) -> str:
    if partition == "p2p":
        return f"master+{ranks - 1}" if ranks > 1 else "1"
    if partition == "rows":
        return f"{ranks}x1"
    if partition == "splitk":
        return f"K/{ranks}"
    rows, cols = process_grid(ranks)
    return f"{rows}x{cols}"
