"""``rows`` and ``2d``: seed 002's collective scheme over a grid of row and column blocks.

Rank r = i * cols + j receives A's row block i and B's column block j packed together
in one Scatter (:mod:`.packing`), multiplies them, and C's block (i, j) comes back to
the root in one Gather. Blocks are the seed's padded ones (ceil(M / rows) rows each,
the shortfall on the last; :class:`~.layout.GridLayout`). ``rows`` is the grid P x 1
(every rank gets all of B); ``2d`` the grid of :func:`~.layout.process_grid` (a prime P
gives P x 1 again).

From blocks already in place (``gemm_blocks``, host or device arrays) only the local
product is left: each rank's blocks hold all of K, so nothing travels and C(i, j) stays
where it is computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .context import Run
from .layout import GridLayout
from .packing import gather_blocks, scatter_pairs


def layout_of(run: Run, partition: str) -> GridLayout:
    return GridLayout.for_ranks(run.m, run.n, run.k, run.size, partition)


def run_grid(run: Run, a: Any, b: Any, layout: GridLayout) -> np.ndarray | None:
    ranks = range(run.size)
    a_mine, b_mine = scatter_pairs(run.transport, run.root, a, b,
                                   [layout.a_block(r) for r in ranks],
                                   [layout.b_block(r) for r in ranks], run.dtype)
    c_mine = run.multiply(a_mine, b_mine)
    return gather_blocks(run.transport, run.root, c_mine,
                         [layout.c_block(r) for r in ranks], (run.m, run.n))


def run_blocks(run: Run, a_mine: Any, b_mine: Any) -> Any:
    """This rank's C(i, j) from its A row block and B column block (numpy or device
    arrays; C is of the same kind)."""
    return run.multiply(a_mine, b_mine)


def rows(run: Run, a: Any, b: Any) -> np.ndarray | None:
    return run_grid(run, a, b, layout_of(run, "rows"))


def grid2d(run: Run, a: Any, b: Any) -> np.ndarray | None:
    return run_grid(run, a, b, layout_of(run, "2d"))
