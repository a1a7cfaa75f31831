"""``rows`` and ``2d``: seed 002's collective scheme over a grid of row and column blocks.

Rank r = i * cols + j receives A's row block i and B's column block j packed together
in one Scatter (:mod:`.packing`), multiplies them, and C's block (i, j) comes back to
the root in one Gather. Blocks are the seed's padded ones (ceil(M / rows) rows each,
the shortfall on the last). ``rows`` is the grid P x 1 (every rank gets all of B);
``2d`` the grid of :func:`~.layout.process_grid` (a prime P gives P x 1 again).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .context import Run
from .layout import padded_ranges, process_grid, span
from .packing import gather_blocks, scatter_pairs


def run_grid(run: Run, a: Any, b: Any, grid: tuple[int, int]) -> np.ndarray | None:
    rows, cols = grid
    m_parts, n_parts = padded_ranges(run.m, rows), padded_ranges(run.n, cols)
    whole_k = slice(0, run.k)
    places = [divmod(r, cols) for r in range(run.size)]
    a_blocks = [(span(m_parts[i]), whole_k) for i, _ in places]
    b_blocks = [(whole_k, span(n_parts[j])) for _, j in places]
    c_blocks = [(span(m_parts[i]), span(n_parts[j])) for i, j in places]
    a_mine, b_mine = scatter_pairs(run.transport, run.root, a, b, a_blocks, b_blocks,
                                   run.dtype)
    c_mine = run.multiply(a_mine, b_mine)
    return gather_blocks(run.transport, run.root, c_mine, c_blocks, (run.m, run.n))


def rows(run: Run, a: Any, b: Any) -> np.ndarray | None:
    return run_grid(run, a, b, (run.size, 1))


def grid2d(run: Run, a: Any, b: Any) -> np.ndarray | None:
    return run_grid(run, a, b, process_grid(run.size))
