"""SUMMA with A, B and C resident on the ranks' devices (:mod:`.resident`).

The steps are those of :meth:`~.layout.BlockLayout.steps`, taken in an order that
alternates their owners (the first step of each owner, then the second of each, ...) and
grouped in **rounds** of two. The panels of a round move at the same time: on two GPUs one
rank sends its panel while it receives the other's, so both directions of the link work
(SUMMA one step at a time would leave one idle). Within a round each rank multiplies
first the steps it owns entirely -- their panels are its own blocks, used in place or
copied on the device -- while the others' panels arrive, then those. With ``overlap`` a
worker thread multiplies round r while the main thread moves round r + 1; panels live in
device buffers that alternate between even and odd rounds, so a round's buffers are
reused only once its products are done.

How a panel moves (:mod:`.staging`): the owner downloads it chunk by chunk
(:func:`~.staging.chunk_bytes`) into host memory and a receiver uploads each chunk as
soon as it has arrived. Between ranks of one node that memory is a shared window: the
owner's download is what the others upload, and a barrier per chunk says it is there.
Otherwise it is each rank's pinned memory, and every chunk is broadcast as soon as it is
down (non-blocking broadcasts, one per chunk and panel, posted in the same order on every
rank of a row or column). The copies run on a queue of their own, beside the kernels.
All of it counts as communication; products and the sums of C's parts as compute.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from .context import Run
from .layout import BlockLayout, Piece
from .local import accumulate
from .resident import Side
from .staging import shared_window
from .transport import Transport, wait_for_all

ROUND = 2  # steps whose panels move together


def interleaved(steps: list[list[Piece]]) -> list[list[Piece]]:
    """The steps with their owners taking turns: the same order on every rank (it depends
    on the layout alone). SUMMA's sum does not depend on the order of its parts."""
    groups: dict[tuple, list] = {}
    for step in steps:
        groups.setdefault(tuple((p.a_owner, p.b_owner) for p in step), []).append(step)
    lists = list(groups.values())
    return [g[i] for i in range(max(len(g) for g in lists)) for g in lists if i < len(g)]


@dataclass
class Move:
    """One piece of ``operand`` ("a" or "b") that crosses ranks on one communicator: sent
    from or received into ``block`` at ``at``; ``host`` is its place in host memory."""

    operand: str
    transport: Transport
    root: int
    sending: bool
    block: Any
    at: tuple[int, int]
    shape: tuple[int, int]
    host: Any = None
    events: list = field(default_factory=list)


@dataclass
class Step:
    pieces: list[Piece]
    local: bool            # this rank owns all of it: ready once its device copies are done
    a: Any = None          # the step's panels on the device
    b: Any = None
    ready: threading.Event = field(default_factory=threading.Event)


class DeviceSum:
    """C's block on the device: the first product written straight into C, every later
    one into a scratch block that is then added to C on the device (both made before
    any worker thread starts)."""

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


class DeviceSumma:
    """One call's resident SUMMA on this rank; :meth:`run` returns C's block (a device
    array)."""

    def __init__(self, run: Run, layout: BlockLayout, a_mine: Any, b_mine: Any,
                 row: Transport, col: Transport, steps: list[list[Piece]]):
        self.run, self.a_mine, self.b_mine, self.row, self.col = run, a_mine, b_mine, row, col
        self.side = side = Side(a_mine, b_mine)
        self.i, self.j = layout.coords(run.rank)
        self.m_here = len(layout.m_ranges[self.i])
        self.n_here = len(layout.n_ranges[self.j])
        self.a_range = layout.a_k_ranges[self.j]  # the K range of this rank's A block
        self.b_range = layout.b_k_ranges[self.i]  # and of its B block
        order = interleaved(steps)
        self.rounds = [[Step(s, all(p.a_owner == self.j and p.b_owner == self.i for p in s))
                        for s in order[r:r + ROUND]] for r in range(0, len(order), ROUND)]
        self.threaded = run.overlap and len(order) > 1
        self.failed = False
        self.errors: list[BaseException] = []
        self.done = [threading.Event() for _ in self.rounds]
        with run.clock.comm():  # device buffers and pinned memory, before any thread starts
            a_width = max((_width(s) for s in order if not self._a_in_place(s)), default=0)
            b_width = max((_width(s) for s in order if not self._b_in_place(s)), default=0)
            slots = min(2, len(self.rounds)) * ROUND
            self.a_slots = ([side.empty((self.m_here * a_width,)) for _ in range(slots)]
                            if self.m_here * a_width else [])
            self.b_slots = ([side.empty((b_width * self.n_here,)) for _ in range(slots)]
                            if b_width * self.n_here else [])
            a_count = max(self._moved(r, "a") for r in self.rounds)
            b_count = max(self._moved(r, "b") for r in self.rounds)
            # where the moving pieces wait on the host: a window shared by the ranks of a
            # node (the same collective calls on every rank: row, then column), else
            # this rank's pinned memory for MPI
            self.transports = {"a": self.row, "b": self.col}
            self.staging, self.shared = {}, {}
            for key, count in (("a", a_count), ("b", b_count)):
                window = shared_window(self.transports[key].comm, count * side.dtype.itemsize,
                                       side.queue.context)
                self.shared[key] = window is not None
                self.staging[key] = (window.view(side.dtype, count) if window is not None
                                     else side.pinned(key, (1, count)).reshape(-1)
                                     if count else None)
        self.total = DeviceSum(run, side, (self.m_here, self.n_here), len(order))

    # --- which pieces are whose --------------------------------------------------------
    def _a_in_place(self, pieces: list[Piece]) -> bool:
        p = pieces[0]
        return (len(pieces) == 1 and p.a_owner == self.j and p.k0 == self.a_range.start
                and p.k1 == self.a_range.stop)

    def _b_in_place(self, pieces: list[Piece]) -> bool:
        p = pieces[0]
        return (len(pieces) == 1 and p.b_owner == self.i and p.k0 == self.b_range.start
                and p.k1 == self.b_range.stop)

    def _moved(self, steps: list[Step], operand: str) -> int:
        """Elements of ``operand`` that cross ranks here in one round (sent or received):
        the round's room in pinned memory."""
        if operand == "a":
            return self.m_here * sum(p.width for s in steps for p in s.pieces) \
                if self.row.size > 1 else 0
        return self.n_here * sum(p.width for s in steps for p in s.pieces) \
            if self.col.size > 1 else 0

    # --- the call ----------------------------------------------------------------------
    def run_all(self) -> Any:
        if not self.threaded:  # one thing at a time
            for r, steps in enumerate(self.rounds):
                self._move(r, steps)
                for step in self._compute_order(steps):
                    self.total.add(step.a, step.b)
            return self.total.c
        worker = threading.Thread(target=self._multiply_all, name="summa-products",
                                  daemon=True)
        worker.start()
        try:
            for r, steps in enumerate(self.rounds):
                if r >= 2:  # round r takes the buffers of round r - 2: its products first
                    self._wait(self.done[r - 2])
                self._move(r, steps)
        except BaseException:
            self.failed = True  # the worker stops at its next step
            for steps in self.rounds:
                for step in steps:
                    step.ready.set()
            worker.join()
            raise
        worker.join()
        if self.errors:
            raise self.errors[0]
        return self.total.c

    def _multiply_all(self) -> None:
        """The worker: each round's steps as they become ready, its own ones first."""
        try:
            for r, steps in enumerate(self.rounds):
                for step in self._compute_order(steps):
                    step.ready.wait()
                    if self.failed:
                        return
                    self.total.add(step.a, step.b)
                self.done[r].set()
        except BaseException as exc:
            self.errors.append(exc)
            self.failed = True
            for event in self.done:
                event.set()

    def _wait(self, event: threading.Event) -> None:
        event.wait()
        if self.errors:
            raise self.errors[0]

    @staticmethod
    def _compute_order(steps: list[Step]) -> list[Step]:
        return [s for s in steps if s.local] + [s for s in steps if not s.local]

    # --- moving a round's panels -------------------------------------------------------
    def _move(self, r: int, steps: list[Step]) -> None:
        """Make the round's panels: own pieces in place or copied on the device (those
        steps are ready at once), the others received; then the received steps are
        ready."""
        with self.run.clock.comm():
            moves, copies = [], []
            for q, step in enumerate(steps):
                slot = (r % 2) * ROUND + q
                step.a = self._panel(step, slot, "a", moves, copies)
                step.b = self._panel(step, slot, "b", moves, copies)
            for event in copies:
                if event is not None:
                    event.wait()
            for step in steps:
                if step.local:
                    step.ready.set()
            self._transfer(moves)
            for step in steps:
                step.ready.set()

    def _panel(self, step: Step, slot: int, operand: str, moves: list, copies: list) -> Any:
        side, pieces = self.side, step.pieces
        is_a = operand == "a"
        mine, transport = (self.a_mine, self.row) if is_a else (self.b_mine, self.col)
        here = self.m_here if is_a else self.n_here
        owner_of = (lambda p: p.a_owner == self.j) if is_a else (lambda p: p.b_owner == self.i)
        start = (self.a_range if is_a else self.b_range).start

        def shape_of(width):
            return (here, width) if is_a else (width, here)

        def at_(offset):
            return (0, offset) if is_a else (offset, 0)

        in_place = self._a_in_place(pieces) if is_a else self._b_in_place(pieces)
        if in_place:
            panel = mine
        else:
            slots = self.a_slots if is_a else self.b_slots
            panel = side.view(slots[slot] if slots else None, shape_of(_width(pieces)))
        offset = 0
        for p in pieces:
            shape = shape_of(p.width)
            root = p.a_owner if is_a else p.b_owner
            if owner_of(p):
                src_at = at_(p.k0 - start)
                if not in_place:
                    copies.append(side.copy(panel, at_(offset), mine, src_at, shape))
                if transport.size > 1 and shape[0] * shape[1]:
                    moves.append(Move(operand, transport, root, True, mine, src_at, shape))
            else:
                if shape[0] * shape[1]:
                    moves.append(Move(operand, transport, root, False, panel, at_(offset),
                                      shape))
            offset += p.width
        return panel

    def _transfer(self, moves: list[Move]) -> None:
        """Every move of a round at once: downloads enqueued for all that this rank sends,
        then chunk by chunk one non-blocking broadcast per move (the same order on every
        rank of a communicator) -- or, for a communicator sharing a window, one barrier
        once every sender's chunk is in it --, each received chunk uploaded as soon as it
        is here."""
        if not moves:
            return
        side = self.side
        used = {"a": 0, "b": 0}
        step_rows = []
        for move in moves:  # places on the host, and the downloads of what is sent
            key = move.operand
            count = move.shape[0] * move.shape[1]
            # the same place on every rank of the communicator: its moves of a round
            # come in the same order with the same shapes everywhere
            move.host = self.staging[key][used[key]:used[key] + count].reshape(move.shape)
            used[key] += count
            rows = side.rows_per_chunk(move.shape[1])
            step_rows.append(rows)
            if move.sending:
                move.events = [side.download(move.host[r0:r0 + rows], move.block,
                                             (move.at[0] + r0, move.at[1]))
                               for r0 in range(0, move.shape[0], rows)]
        # yielding waits: every rank of these communicators is here before MPI spins
        wait_for_all([m.transport for m in moves])
        chunks = max(-(-m.shape[0] // rows) for m, rows in zip(moves, step_rows))
        uploads = []
        for c in range(chunks):
            requests, arriving, shared = [], [], set()
            for move, rows in zip(moves, step_rows):
                r0 = c * rows
                if r0 >= move.shape[0]:
                    continue
                if move.sending:
                    move.events[c].wait()
                else:
                    arriving.append((move, r0, rows))
                if self.shared[move.operand]:  # in a window: a barrier says it is there
                    shared.add(move.operand)
                else:
                    requests.append(move.transport.start_bcast(move.host[r0:r0 + rows],
                                                               move.root))
            requests += [self.transports[key].start_barrier() for key in sorted(shared)]
            Transport.wait_all(requests)  # sends and receives of this chunk, at once
            for move, r0, rows in arriving:
                uploads.append(side.upload(move.block, (move.at[0] + r0, move.at[1]),
                                           move.host[r0:r0 + rows]))
        for event in uploads:
            event.wait()
        # a window is written again next round only once every rank has read this one
        Transport.wait_all([self.transports[key].start_barrier()
                            for key in sorted({m.operand for m in moves})
                            if self.shared[key]])


def _width(pieces: list[Piece]) -> int:
    return sum(p.width for p in pieces)


def run_blocks(run: Run, layout: BlockLayout, a_mine: Any, b_mine: Any, row: Transport,
               col: Transport, steps: list[list[Piece]]) -> Any:
    return DeviceSumma(run, layout, a_mine, b_mine, row, col, steps).run_all()

