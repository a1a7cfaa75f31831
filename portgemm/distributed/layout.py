"""Where each rank's pieces lie: splits of one dimension, the process grid, the blocks of
``rows`` and ``2d`` (:class:`GridLayout`) and of SUMMA (:class:`BlockLayout`).

Pure arithmetic (no MPI), so every rank computes the same answer from the same shape
and nothing about the layout ever has to be sent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property


def even_ranges(n: int, parts: int) -> list[range]:
    """``n`` split into ``parts`` contiguous ranges whose lengths differ by at most one
    (the first ``n % parts`` get the extra one); empty ranges when parts > n."""
    base, extra = divmod(n, parts)
    bounds = [0]
    for i in range(parts):
        bounds.append(bounds[-1] + base + (1 if i < extra else 0))
    return [range(bounds[i], bounds[i + 1]) for i in range(parts)]


def padded_ranges(n: int, parts: int) -> list[range]:
    """Seed 002's collective split: every part is ceil(n / parts) long, as if ``n`` were
    padded up to a multiple of ``parts``; the padding falls on the last parts, which may
    be shorter or empty (n = 5, parts = 4: 2, 2, 1, 0)."""
    block = -(-n // parts)
    return [range(min(i * block, n), min((i + 1) * block, n)) for i in range(parts)]


def master_worker_ranges(n: int, workers: int) -> list[range]:
    """Seed 002's point-to-point split over the workers: each gets n // workers rows and
    the last one also takes the remainder (n = 10, workers = 3: 3, 3, 4)."""
    each = n // workers
    starts = [i * each for i in range(workers)] + [n]
    return [range(starts[i], starts[i + 1]) for i in range(workers)]


def process_grid(ranks: int) -> tuple[int, int]:
    """Seed 002's 2-D grid: f, the largest divisor of ``ranks`` that is <= sqrt(ranks),
    gives ranks // f row blocks of A and f column blocks of B (12 -> 4 x 3, 8 -> 4 x 2,
    a prime p -> p x 1, which is the 1-D row partition)."""
    if ranks < 1:
        raise ValueError(f"a process grid needs at least one rank, got {ranks}")
    f = next(d for d in range(math.isqrt(ranks), 0, -1) if ranks % d == 0)
    return ranks // f, f


def span(r: range) -> slice:
    return slice(r.start, r.stop)


@dataclass(frozen=True)
class GridLayout:
    """Seed 002's collective blocks on a ``rows x cols`` grid (rank = i * cols + j): A's row
    block i with all of K, B's column block j with all of K, and C(i, j); the splits are
    the seed's padded ones (:func:`padded_ranges`). ``rows`` is the grid P x 1, ``2d`` the
    grid of :func:`process_grid`."""

    m: int
    n: int
    k: int
    rows: int
    cols: int

    @classmethod
    def for_ranks(cls, m: int, n: int, k: int, ranks: int,
                  partition: str = "2d") -> GridLayout:
        grid = (ranks, 1) if partition == "rows" else process_grid(ranks)
        return cls(m, n, k, *grid)

    @cached_property
    def m_ranges(self) -> list[range]:
        return padded_ranges(self.m, self.rows)

    @cached_property
    def n_ranges(self) -> list[range]:
        return padded_ranges(self.n, self.cols)

    def coords(self, rank: int) -> tuple[int, int]:
        return divmod(rank, self.cols)

    def a_block(self, rank: int) -> tuple[slice, slice]:
        return span(self.m_ranges[self.coords(rank)[0]]), slice(0, self.k)

    def b_block(self, rank: int) -> tuple[slice, slice]:
        return slice(0, self.k), span(self.n_ranges[self.coords(rank)[1]])

    def c_block(self, rank: int) -> tuple[slice, slice]:
        i, j = self.coords(rank)
        return span(self.m_ranges[i]), span(self.n_ranges[j])


@dataclass(frozen=True)
class BlockLayout:
    """The blocks a rank holds in SUMMA on a ``rows x cols`` grid (rank = i * cols + j):
    A(i, j) = A[row range i, K range j of cols], B(i, j) = B[K range i of rows, col range j],
    C(i, j) = C[row range i, col range j], every split even (:func:`even_ranges`)."""

    m: int
    n: int
    k: int
    rows: int
    cols: int

    @classmethod
    def for_ranks(cls, m: int, n: int, k: int, ranks: int) -> BlockLayout:
        return cls(m, n, k, *process_grid(ranks))

    @property
    def ranks(self) -> int:
        return self.rows * self.cols

    @cached_property
    def m_ranges(self) -> list[range]:
        return even_ranges(self.m, self.rows)

    @cached_property
    def n_ranges(self) -> list[range]:
        return even_ranges(self.n, self.cols)

    @cached_property
    def a_k_ranges(self) -> list[range]:  # A's columns, over the grid's columns
        return even_ranges(self.k, self.cols)

    @cached_property
    def b_k_ranges(self) -> list[range]:  # B's rows, over the grid's rows
        return even_ranges(self.k, self.rows)

    def coords(self, rank: int) -> tuple[int, int]:
        return divmod(rank, self.cols)

    def a_block(self, rank: int) -> tuple[slice, slice]:
        i, j = self.coords(rank)
        return span(self.m_ranges[i]), span(self.a_k_ranges[j])

    def b_block(self, rank: int) -> tuple[slice, slice]:
        i, j = self.coords(rank)
        return span(self.b_k_ranges[i]), span(self.n_ranges[j])

    def c_block(self, rank: int) -> tuple[slice, slice]:
        i, j = self.coords(rank)
        return span(self.m_ranges[i]), span(self.n_ranges[j])

    def steps(self, panel: int | None = None) -> list[list[Piece]]:
        """SUMMA's steps: each a K range no wider than ``panel`` (None: the natural pieces
        between the block boundaries of A's columns and B's rows), made of pieces that
        each lie inside one A column block and one B row block -- the owners that
        broadcast them along their process row and column."""
        cuts = sorted({r.start for r in self.a_k_ranges + self.b_k_ranges} | {self.k})
        if panel is not None:
            if panel < 1:
                raise ValueError(f"panel must be >= 1, got {panel}")
            cuts = sorted(set(cuts) | set(range(0, self.k, panel)))
        pieces = [Piece(k0, k1, _owner(self.a_k_ranges, k0), _owner(self.b_k_ranges, k0))
                  for k0, k1 in zip(cuts, cuts[1:]) if k1 > k0]
        if panel is None:
            return [[p] for p in pieces]
        steps: list[list[Piece]] = []
        for piece in pieces:  # pieces never straddle a multiple of panel: group by it
            if steps and steps[-1][0].k0 // panel == piece.k0 // panel:
                steps[-1].append(piece)
            else:
                steps.append([piece])
        return steps


@dataclass(frozen=True)
class Piece:
    """K range [k0, k1) of one SUMMA step, owned by grid column ``a_owner`` (for A) and
    grid row ``b_owner`` (for B)."""

    k0: int
    k1: int
    a_owner: int
    b_owner: int

    @property
    def width(self) -> int:
        return self.k1 - self.k0


def _owner(ranges: list[range], index: int) -> int:
    return next(i for i, r in enumerate(ranges) if index in r)
