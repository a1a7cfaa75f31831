"""The check that opens every distributed call, before any data moves.

Each rank writes a statement -- the partition it was asked for, what is wrong on its
side, and (from the ranks holding operands) the shapes and dtype -- and one allgather
shows every statement to every rank. All ranks then reach the same verdict from the same
list, so they raise the same error (naming the rank where it arose) or go on together
with the same shape: no rank is left waiting for a collective the others never enter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..operands import SUPPORTED_DTYPES
from .errors import KINDS
from .transport import Transport


@dataclass
class Statement:
    """One rank's side of the agreement (pickled: plain values only)."""

    partition: str
    problem: tuple[str, str] | None = None  # (kind in errors.KINDS, message)
    shape: tuple[int, int, int] | None = None  # (m, n, k) as this rank sees it
    dtype: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def fail(self, kind: str, message: str) -> Statement:
        if self.problem is None:  # the first problem on a rank is the one reported
            self.problem = (kind, message)
        return self


def describe_operands(statement: Statement, a: Any, b: Any, aligned: bool = True) -> Statement:
    """Shape and dtype of A (M x K) and B (K x N), or the problem with them. ``aligned``
    False: SUMMA's blocks A(i, j) and B(i, j), whose inner sizes differ in general."""
    for label, x in (("a", a), ("b", b)):
        if getattr(x, "shape", None) is None:  # a list, say: numpy's conversion is not ours
            return statement.fail("type", f"{label} must be an array (numpy's or a device "
                                          f"array), got {type(x).__name__}")
    a_shape, b_shape = a.shape, b.shape
    if len(a_shape) != 2 or len(b_shape) != 2:
        return statement.fail("shape", f"a and b must be 2-D matrices, got shapes "
                                       f"{a_shape} and {b_shape}")
    a_dtype, b_dtype = _kind(a), _kind(b)
    if a_dtype not in SUPPORTED_DTYPES or b_dtype != a_dtype:
        return statement.fail("type", f"a is {a_dtype} and b is {b_dtype}: both must be "
                                      f"float32 or both float64")
    statement.dtype = a_dtype.name
    statement.shape = (a_shape[0], b_shape[1], a_shape[1])
    if aligned and a_shape[1] != b_shape[0]:
        return statement.fail("shape", f"shapes {tuple(a_shape)} and {tuple(b_shape)} do "
                                       f"not align: a has {a_shape[1]} columns, b has "
                                       f"{b_shape[0]} rows")
    return statement


def _kind(x: Any) -> np.dtype:
    """x's dtype, a numpy array's in this machine's byte order: the entry points copy a
    byte-swapped one into it (``operands.as_array``), as ``portgemm.matmul`` does."""
    dtype = np.dtype(x.dtype)
    return dtype.newbyteorder("=") if isinstance(x, np.ndarray) else dtype


def check_waiting(statement: Statement, wait: str | None, route: bool = False) -> str:
    """The call's ``wait`` (see :func:`.transport.check_wait`) and, with ``route``, resident
    SUMMA's ``$PORTGEMM_MPI_ROUTE``: a bad one is the statement's problem, raised as a
    PartitionError on every rank by :func:`agree` (not a ValueError on some ranks while
    the others wait). Returns the waiting to open the call with."""
    from .staging import chunk_bytes, route as staging_route
    from .transport import check_wait

    try:
        wait = check_wait(wait)
    except ValueError as exc:
        statement.fail("partition", str(exc))
        wait = "yield"  # the opening agreement still runs, and raises
    if route:
        for check in (staging_route, chunk_bytes):  # what resident SUMMA reads
            try:
                check()
            except ValueError as exc:
                statement.fail("partition", str(exc))
    return wait


def agree(transport: Transport, mine: Statement) -> list[Statement]:
    """Every rank's statement, after raising on every rank the first problem stated (in
    rank order) or a disagreement about the partition."""
    statements = transport.allgather_object(mine)
    # disagreement first: when ranks run different partitions, their other checks
    # (block shapes, say) were made against different expectations
    names = {s.partition for s in statements}
    if len(names) > 1:
        asked = ", ".join(f"rank {r}: {s.partition!r}" for r, s in enumerate(statements))
        raise KINDS["partition"](f"ranks disagree on the partition ({asked})")
    for rank, s in enumerate(statements):
        if s.problem is not None:
            kind, message = s.problem
            raise KINDS[kind](f"rank {rank} of {len(statements)}: {message}")
    return statements
