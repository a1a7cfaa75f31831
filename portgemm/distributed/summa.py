"""``summa``: SUMMA (van de Geijn and Watts) on the 2-D process grid, owner computes.

Rank (i, j) holds A(i, j), B(i, j) and C(i, j) of a :class:`~.layout.BlockLayout`. At
each step, a K range of A's column blocks is broadcast along each process row by the
rank that owns it, and the same K range of B's row blocks down each process column;
every rank adds the product of the two panels it now holds to its own C block. Nothing
but panels travels, each rank's traffic falls like 1 / sqrt(P), and C stays where it is
computed -- the partition that scales past one node.

With ``overlap`` the next step's panels are fetched while a worker thread multiplies the
current ones (the seed's advice: communicate while computing). ``panel`` sets the
widest K range of a step: narrower steps overlap more, wider ones make fewer and larger
local products (a GPU prefers those). Blocks that are device arrays go to
:mod:`.summa_device` (the same steps, their panels moved two at a time through pinned
host memory, C kept on the device).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from . import summa_device
from .context import Run
from .layout import BlockLayout, Piece
from .local import accumulate
from .packing import gather_blocks, scatter_pairs
from .resident import is_resident
from .transport import Transport


def layout_of(run: Run) -> BlockLayout:
    return BlockLayout.for_ranks(run.m, run.n, run.k, run.size)


def run(run: Run, a: Any, b: Any) -> np.ndarray | None:
    """From operands on the root: scatter the blocks, SUMMA, gather C on the root."""
    layout = layout_of(run)
    ranks = range(run.size)
    a_mine, b_mine = scatter_pairs(run.transport, run.root, a, b,
                                   [layout.a_block(r) for r in ranks],
                                   [layout.b_block(r) for r in ranks], run.dtype)
    c_mine = run_blocks(run, a_mine, b_mine, layout)
    return gather_blocks(run.transport, run.root, c_mine,
                         [layout.c_block(r) for r in ranks], (run.m, run.n))


def run_blocks(run: Run, a_mine: Any, b_mine: Any, layout: BlockLayout) -> Any:
    """This rank's C block from its A and B blocks: numpy arrays, or device arrays
    (:mod:`.resident`: C then stays on the device too)."""
    i, j = layout.coords(run.rank)
    t = run.transport
    with run.clock.comm():
        # ranks of one grid row share A's panels, ranks of one column B's
        row_comm, col_comm = t.comm.Split(i, j), t.comm.Split(j, i)
    try:
        steps = layout.steps(run.panel)
        row, col = t.on(row_comm), t.on(col_comm)
        if is_resident(a_mine, b_mine):
            return summa_device.run_blocks(run, layout, a_mine, b_mine, row, col, steps)
        return _steps(run, steps, Panels(run, layout, a_mine, b_mine, row, col),
                      HostSum(run))
    finally:
        row_comm.Free()
        col_comm.Free()


def _steps(run: Run, steps: list[list[Piece]], panels: Any, total: Any) -> Any:
    pool = ThreadPoolExecutor(1) if run.overlap and len(steps) > 1 else None
    try:
        current = panels.fetch(steps[0])
        for s in range(len(steps)):
            if pool is None:
                total.add(*current)
                current = panels.fetch(steps[s + 1]) if s + 1 < len(steps) else None
            else:  # multiply this step in the worker while the next step's panels move
                product = pool.submit(total.add, *current)
                current = panels.fetch(steps[s + 1]) if s + 1 < len(steps) else None
                product.result()
    finally:
        if pool is not None:
            pool.shutdown()
    return total.c


class HostSum:
    """C's block on the host: the first part, then each part added to it."""

    def __init__(self, run: Run):
        self.run, self.c = run, None

    def add(self, a: Any, b: Any) -> None:
        with self.run.clock.compute():
            part = self.run.multiply(a, b)
            self.c = part if self.c is None else accumulate(self.c, part)


class Panels:
    """The two panels of a step on this rank: its part of A's columns [k0, k1) for its
    block row, and B's rows [k0, k1) for its block column, broadcast by their owners."""

    def __init__(self, run: Run, layout: BlockLayout, a_mine: Any, b_mine: Any,
                 row: Transport, col: Transport):
        self.run, self.layout, self.a_mine, self.b_mine = run, layout, a_mine, b_mine
        self.row, self.col = row, col
        self.i, self.j = layout.coords(run.rank)
        self.m_here = len(layout.m_ranges[self.i])
        self.n_here = len(layout.n_ranges[self.j])

    def fetch(self, step: list[Piece]) -> tuple[np.ndarray, np.ndarray]:
        a_parts = [self._a_piece(p) for p in step]
        b_parts = [self._b_piece(p) for p in step]
        if len(step) == 1:
            return a_parts[0], b_parts[0]
        with self.run.clock.comm():  # a wide step spans several owners: join their pieces
            return np.concatenate(a_parts, axis=1), np.concatenate(b_parts, axis=0)

    def _a_piece(self, p: Piece) -> np.ndarray:
        if self.j == p.a_owner:
            start = self.layout.a_k_ranges[p.a_owner].start
            with self.run.clock.comm():
                piece = np.ascontiguousarray(self.a_mine[:, p.k0 - start:p.k1 - start])
        else:
            piece = np.empty((self.m_here, p.width), self.run.dtype)
        self.row.bcast(piece, root=p.a_owner)  # row communicator ranks are the columns
        return piece

    def _b_piece(self, p: Piece) -> np.ndarray:
        if self.i == p.b_owner:
            start = self.layout.b_k_ranges[p.b_owner].start
            with self.run.clock.comm():
                piece = np.ascontiguousarray(self.b_mine[p.k0 - start:p.k1 - start])
        else:
            piece = np.empty((p.width, self.n_here), self.run.dtype)
        self.col.bcast(piece, root=p.b_owner)  # column communicator ranks are the rows
        return piece
