"""What a partition works with: the transport, this rank's local setup, the agreed shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .clock import Clock
from .local import LocalSetup, local_product
from .transport import Transport


@dataclass
class Run:
    transport: Transport
    setup: LocalSetup
    m: int
    n: int
    k: int
    dtype: np.dtype
    root: int = 0
    panel: int | None = None  # SUMMA: widest K range of one step (None: block boundaries)
    overlap: bool = True      # SUMMA: fetch the next step's panels while this one computes

    @property
    def clock(self) -> Clock:
        return self.transport.clock

    @property
    def rank(self) -> int:
        return self.transport.rank

    @property
    def size(self) -> int:
        return self.transport.size

    def multiply(self, a: Any, b: Any, out: Any = None) -> Any:
        """This rank's local product (into ``out`` when given), counted as compute."""
        with self.clock.compute():
            return local_product(a, b, self.setup, out)
