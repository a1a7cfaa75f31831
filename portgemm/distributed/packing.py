"""Seed 002's collective scheme, shared by the partitions that start from rank 0: each
rank's pair of operand blocks (a piece of A, a piece of B) is packed into one buffer and
sent with a single Scatter of an MPI struct type; C's blocks come back in one Gather.

Blocks may differ in shape (the last rows of a split, a K slice that is empty): every
slot of the buffer has the largest shape, the data in its top-left corner and zeros
around it, as the seed pads A's rows to a multiple of the process count. Only the real
part is multiplied. Packing and unpacking are host copies the scheme needs, so they count
as communication.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .mpi import load_mpi, mpi_type
from .transport import Transport

Block = tuple[slice, slice]  # rows and columns of a matrix


def block_shape(block: Block) -> tuple[int, int]:
    return block[0].stop - block[0].start, block[1].stop - block[1].start


def slot_shape(blocks: Sequence[Block]) -> tuple[int, int]:
    """The padded shape every rank's slot has: the largest block in each dimension."""
    shapes = [block_shape(b) for b in blocks]
    return max(s[0] for s in shapes), max(s[1] for s in shapes)


def pair_type(a_count: int, b_count: int, dtype: np.dtype) -> Any:
    """One rank's slot as a committed struct type: ``a_count`` elements of A's block
    followed by ``b_count`` of B's (the seed's MPI_Type_create_struct)."""
    mpi = load_mpi()
    element = mpi_type(dtype)
    return mpi.Datatype.Create_struct([a_count, b_count], [0, a_count * dtype.itemsize],
                                      [element, element]).Commit()


def scatter_pairs(transport: Transport, root: int, a: np.ndarray | None,
                  b: np.ndarray | None, a_blocks: Sequence[Block], b_blocks: Sequence[Block],
                  dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Rank r receives A[a_blocks[r]] and B[b_blocks[r]] (every rank passes the same
    block lists; only the root passes ``a`` and ``b``). Returns this rank's two blocks,
    views into the received buffer."""
    dtype = np.dtype(dtype)
    a_slot, b_slot = slot_shape(a_blocks), slot_shape(b_blocks)
    a_count, b_count = a_slot[0] * a_slot[1], b_slot[0] * b_slot[1]
    ranks, rank = transport.size, transport.rank
    with transport.clock.comm():
        packed = None
        if rank == root:
            packed = np.zeros((ranks, a_count + b_count), dtype)
            for r in range(ranks):
                _put(packed[r, :a_count].reshape(a_slot), a[a_blocks[r]])
                _put(packed[r, a_count:].reshape(b_slot), b[b_blocks[r]])
        mine = np.empty(a_count + b_count, dtype)
        struct = pair_type(a_count, b_count, dtype)
    try:
        transport.scatter([packed, 1, struct] if rank == root else None, [mine, 1, struct],
                          root)
    finally:
        struct.Free()
    a_rows, a_cols = block_shape(a_blocks[rank])
    b_rows, b_cols = block_shape(b_blocks[rank])
    return (mine[:a_count].reshape(a_slot)[:a_rows, :a_cols],
            mine[a_count:].reshape(b_slot)[:b_rows, :b_cols])


def gather_blocks(transport: Transport, root: int, c_local: np.ndarray,
                  c_blocks: Sequence[Block], shape: tuple[int, int]) -> np.ndarray | None:
    """C assembled on the root from every rank's block C[c_blocks[r]] (in one Gather of
    padded slots); None on the other ranks."""
    slot = slot_shape(c_blocks)
    ranks, rank = transport.size, transport.rank
    with transport.clock.comm():
        mine = np.zeros(slot, c_local.dtype)
        _put(mine, c_local)
        gathered = np.empty((ranks, *slot), c_local.dtype) if rank == root else None
    transport.gather(mine, gathered, root)
    if rank != root:
        return None
    with transport.clock.comm():
        c = np.empty(shape, c_local.dtype)
        for r in range(ranks):
            rows, cols = block_shape(c_blocks[r])
            c[c_blocks[r]] = gathered[r, :rows, :cols]
        return c


def _put(slot: np.ndarray, block: np.ndarray) -> None:
    slot[:block.shape[0], :block.shape[1]] = block
