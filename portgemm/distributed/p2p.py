"""``p2p``: seed 002's master/worker with point-to-point messages.

The root (the master) computes nothing while there are workers: it sends each worker
its rows of A (tag 1) and the whole of B (tag 2), one blocking send after the other,
then receives C's rows (tag 3) worker by worker. Rows are split as the seed does:
M // W to each of the W = P - 1 workers, the remainder to the last one (a worker may
get no rows when P - 1 > M). With one rank the master multiplies alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .context import Run
from .layout import master_worker_ranges

TAG_A, TAG_B, TAG_C = 1, 2, 3


def run(run: Run, a: Any, b: Any) -> np.ndarray | None:
    if run.size == 1:
        return run.multiply(a, b)
    t, m, n, k = run.transport, run.m, run.n, run.k
    workers = [r for r in range(run.size) if r != run.root]
    rows = dict(zip(workers, master_worker_ranges(m, len(workers))))
    if run.rank == run.root:
        with run.clock.comm():
            a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
            c = np.empty((m, n), run.dtype)
        for w in workers:
            t.send(a[rows[w].start:rows[w].stop], w, TAG_A)
            t.send(b, w, TAG_B)
        for w in workers:  # C's rows arrive straight into their place (a contiguous view)
            t.recv(c[rows[w].start:rows[w].stop], w, TAG_C)
        return c
    mine = rows[run.rank]
    a_rows, b_all = np.empty((len(mine), k), run.dtype), np.empty((k, n), run.dtype)
    t.recv(a_rows, run.root, TAG_A)
    t.recv(b_all, run.root, TAG_B)
    t.send(run.multiply(a_rows, b_all), run.root, TAG_C)
    return None
