"""Where a rank's time goes: communication (MPI calls, waiting for peers, the packing and
unpacking the scheme needs, and with device-resident operands the copies between the
device and pinned host buffers) and local compute (the local products and the sums of
their parts)."""

from __future__ import annotations

import time
from contextlib import contextmanager


class Clock:
    """Milliseconds spent in each kind of work. ``comm`` and ``compute`` may run in
    different threads (SUMMA overlaps them): each accumulator has one writer. Nested
    uses of one accumulator count once (the outermost)."""

    def __init__(self):
        self.comm_ms = 0.0
        self.compute_ms = 0.0
        self._depth = {"comm_ms": 0, "compute_ms": 0}
        self.start = time.perf_counter()

    @contextmanager
    def _timed(self, name: str):
        outermost = self._depth[name] == 0
        self._depth[name] += 1
        t = time.perf_counter()
        try:
            yield
        finally:
            self._depth[name] -= 1
            if outermost:
                setattr(self, name, getattr(self, name) + (time.perf_counter() - t) * 1e3)

    def comm(self):
        return self._timed("comm_ms")

    def compute(self):
        return self._timed("compute_ms")

    def total_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1e3
