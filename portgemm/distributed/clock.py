"""Where a rank's time goes: communication (MPI calls, waiting for peers, and the packing
and unpacking the scheme needs) and local compute (the local products)."""

from __future__ import annotations

import time
from contextlib import contextmanager


class Clock:
    """Milliseconds spent in each kind of work. ``comm`` and ``compute`` may run in
    different threads (SUMMA overlaps them): each accumulator has one writer."""

    def __init__(self):
        self.comm_ms = 0.0
        self.compute_ms = 0.0
        self.start = time.perf_counter()

    @contextmanager
    def comm(self):
        t = time.perf_counter()
        try:
            yield
        finally:
            self.comm_ms += (time.perf_counter() - t) * 1e3

    @contextmanager
    def compute(self):
        t = time.perf_counter()
        try:
            yield
        finally:
            self.compute_ms += (time.perf_counter() - t) * 1e3

    def total_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1e3
