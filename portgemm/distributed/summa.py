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
local products (a GPU prefers those).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .context import Run
from .layout import BlockLayout, Piece
from .local import accumulate
from .packing import gather_blocks, scatter_pairs
from .resident import Side, is_resident
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
            panels = DevicePanels(run, layout, a_mine, b_mine, row, col, steps)
            total = DeviceSum(run, panels.side, (panels.m_here, panels.n_here), len(steps))
        else:
            panels = Panels(run, layout, a_mine, b_mine, row, col)
            total = HostSum(run)
        return _steps(run, steps, panels, total)
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


class DeviceSum:
    """C's block on the device: the first product written straight into C, every later
    one into a scratch block that is then added to C on the device (both made before
    the worker thread starts)."""

    def __init__(self, run: Run, side: Side, shape: tuple[int, int], steps: int):
        self.run = run
        self.c = side.empty(shape)
        self.part = side.empty(shape) if steps > 1 and self.c.size else None
        self.first = True

    def add(self, a: Any, b: Any) -> None:
        if not self.c.size:  # no rows or no columns here: C's block is empty
            return
        with self.run.clock.compute():
            if self.first:
                self.run.multiply(a, b, out=self.c)
                self.first = False
            else:
                accumulate(self.c, self.run.multiply(a, b, out=self.part))


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


class DevicePanels:
    """The same panels with A, B (and C) resident on the device. For each piece of a
    step, its owner uses its block where it lies -- in place when the step is its whole
    block, else copied on the device into the step's panel -- and, when its row (for A)
    or column (for B) has other ranks, sends it device -> pinned host -> MPI; the others
    receive it MPI -> pinned host -> device, into their panel. Panels alternate between
    two device slots per operand, so step s + 1 can arrive while step s is multiplied;
    slots and pinned buffers are made here, before the worker thread starts."""

    def __init__(self, run: Run, layout: BlockLayout, a_mine: Any, b_mine: Any,
                 row: Transport, col: Transport, steps: list[list[Piece]]):
        self.run, self.layout, self.a_mine, self.b_mine = run, layout, a_mine, b_mine
        self.row, self.col = row, col
        self.side = Side(a_mine)
        self.i, self.j = layout.coords(run.rank)
        self.m_here = len(layout.m_ranges[self.i])
        self.n_here = len(layout.n_ranges[self.j])
        self.a_range = layout.a_k_ranges[self.j]  # the K range of this rank's A block
        self.b_range = layout.b_k_ranges[self.i]  # and of its B block
        self.fetched = 0
        with run.clock.comm():
            a_width = max((_width(s) for s in steps if not self._a_in_place(s)), default=0)
            b_width = max((_width(s) for s in steps if not self._b_in_place(s)), default=0)
            self.a_slots = [self.side.empty((self.m_here * a_width,))
                            for _ in range(2)] if self.m_here * a_width else []
            self.b_slots = [self.side.empty((b_width * self.n_here,))
                            for _ in range(2)] if b_width * self.n_here else []
            widest = max(p.width for s in steps for p in s)
            if row.size > 1:  # A's pieces travel along the row: a pinned buffer for them
                self.side.pinned("a", (self.m_here, widest))
            if col.size > 1:
                self.side.pinned("b", (widest, self.n_here))

    def _a_in_place(self, step: list[Piece]) -> bool:
        p = step[0]
        return (len(step) == 1 and p.a_owner == self.j and p.k0 == self.a_range.start
                and p.k1 == self.a_range.stop)

    def _b_in_place(self, step: list[Piece]) -> bool:
        p = step[0]
        return (len(step) == 1 and p.b_owner == self.i and p.k0 == self.b_range.start
                and p.k1 == self.b_range.stop)

    def fetch(self, step: list[Piece]) -> tuple[Any, Any]:
        slot = self.fetched % 2
        self.fetched += 1
        with self.run.clock.comm():
            return self._a_panel(step, slot), self._b_panel(step, slot)

    def _a_panel(self, step: list[Piece], slot: int) -> Any:
        side, width = self.side, _width(step)
        if self._a_in_place(step):
            p = step[0]
            side.send(self.row, p.a_owner, self.a_mine, (0, 0), (self.m_here, p.width), "a")
            return self.a_mine
        panel = side.view(self.a_slots[slot] if self.a_slots else None, (self.m_here, width))
        copies, column = [], 0
        for p in step:
            shape = (self.m_here, p.width)
            if self.j == p.a_owner:
                at = (0, p.k0 - self.a_range.start)
                copies.append(side.copy(panel, (0, column), self.a_mine, at, shape))
                side.send(self.row, p.a_owner, self.a_mine, at, shape, "a")
            else:
                side.receive(self.row, p.a_owner, panel, (0, column), shape, "a")
            column += p.width
        _wait(copies)
        return panel

    def _b_panel(self, step: list[Piece], slot: int) -> Any:
        side, width = self.side, _width(step)
        if self._b_in_place(step):
            p = step[0]
            side.send(self.col, p.b_owner, self.b_mine, (0, 0), (p.width, self.n_here), "b")
            return self.b_mine
        panel = side.view(self.b_slots[slot] if self.b_slots else None, (width, self.n_here))
        copies, row = [], 0
        for p in step:
            shape = (p.width, self.n_here)
            if self.i == p.b_owner:
                at = (p.k0 - self.b_range.start, 0)
                copies.append(side.copy(panel, (row, 0), self.b_mine, at, shape))
                side.send(self.col, p.b_owner, self.b_mine, at, shape, "b")
            else:
                side.receive(self.col, p.b_owner, panel, (row, 0), shape, "b")
            row += p.width
        _wait(copies)
        return panel


def _width(step: list[Piece]) -> int:
    return sum(p.width for p in step)


def _wait(events: list) -> None:
    for event in events:
        if event is not None:
            event.wait()
