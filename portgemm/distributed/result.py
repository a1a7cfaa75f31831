"""What a distributed call returns on each rank."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..result import GemmResult


@dataclass
class DistributedResult:
    """This rank's view of one distributed GEMM.

    c: the whole C on the root (``p2p``, ``rows``, ``2d``, and ``summa`` from the root),
      on every rank (``splitk``), or this rank's block C[c_block] (``rows``, ``2d`` and
      ``summa`` on blocks); None where this rank holds none of it. A device array
      (``pyopencl.array.Array``) when the blocks were (operands "resident").
    comm_ms: time in communication on this rank -- MPI calls including waiting for peers,
      the packing and unpacking the scheme needs, and with resident operands the copies
      between the device and pinned host buffers. compute_ms: time in local products
      (and the sums of SUMMA's parts).
    total_ms: the whole call on this rank, the opening agreement included. With SUMMA's
      overlap, comm_ms and compute_ms run at the same time and may add up to more.
    """

    partition: str
    operands: str            # "root" (given on the root), "blocks" (already distributed)
                             # or "resident" (distributed, on the ranks' devices)
    rank: int
    ranks: int
    m: int
    n: int
    k: int
    dtype: str
    grid: str                # the process arrangement, e.g. "2x2", "master+3", "K/4"
    c: Any = field(repr=False)
    c_block: tuple[slice, slice] | None  # where ``c`` lies in C when it is a block
    comm_ms: float
    compute_ms: float
    total_ms: float
    device: str              # this rank's device label
    products: int            # local products this rank computed
    local: GemmResult | None = field(default=None, repr=False)  # the last of them

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k
