"""``splitk``: K split across the ranks, partial products summed by an allreduce.

Rank r holds A[:, K_r] and B[K_r, :] (even K ranges; empty when K < P) and computes
the M x N partial product; the allreduce leaves C = sum of the partials on every rank.
Only C travels after the split, so this is the partition for tall-skinny problems
(small M and N, large K), where splitting M or N leaves little work per rank.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .context import Run
from .layout import even_ranges, span
from .packing import scatter_pairs
from .resident import Side, is_resident


def k_blocks(run: Run) -> list[range]:
    return even_ranges(run.k, run.size)


def run(run: Run, a: Any, b: Any) -> np.ndarray:
    """From operands on the root: one packed Scatter of every rank's (A[:, K_r],
    B[K_r, :]), then :func:`run_blocks`. C ends on every rank."""
    parts = [span(r) for r in k_blocks(run)]
    a_blocks = [(slice(0, run.m), p) for p in parts]
    b_blocks = [(p, slice(0, run.n)) for p in parts]
    a_mine, b_mine = scatter_pairs(run.transport, run.root, a, b, a_blocks, b_blocks,
                                   run.dtype)
    return run_blocks(run, a_mine, b_mine)


def run_blocks(run: Run, a_mine: Any, b_mine: Any) -> Any:
    """This rank's A (M x K_r) and B (K_r x N), any K_r (0 included); C on every rank.
    Device arrays (:mod:`.resident`): the partial product stays on the device but for
    its trip through pinned host memory to the allreduce and back; C ends on every
    rank's device."""
    if is_resident(a_mine, b_mine):
        partial = run.multiply(a_mine, b_mine)
        with run.clock.comm():
            return Side(partial).allreduce(run.transport, partial)
    partial = np.ascontiguousarray(run.multiply(a_mine, b_mine))
    return run.transport.allreduce(partial)
