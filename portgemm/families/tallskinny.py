"""tallskinny: C = A @ B for small M, N and a deep K, bound by reading A and B once.

kernels_cl/tallskinny.cl: GS work-groups of BS work-items per tile_y x tile_x tile of C (the kernel's TM x TN); each
work-item accumulates its tile over a grid-stride (coalesced) slice of K, each group sums
its work-items in local memory and writes a partial tile into a workspace, and
kernels_cl/reduce.cl adds the GS partial tiles into C in a fixed order: deterministic.
"""

from __future__ import annotations

from math import ceil

from ..errors import ParameterError
from ..runtime.ndrange import NDRange
from .base import LaunchPlan, Params, Variant, reduce_step, restriction
from .phvm import INT_LIMIT, POWERS_OF_TWO

LOCAL_BYTES = 16384  # local memory for the group's sums, well inside every device's 32 KB+


@restriction("BS must be a power of two (the work-group sums by halving)")
def _power_of_two(p: Params) -> bool:
    return p["BS"] & (p["BS"] - 1) == 0


class TallSkinny(Variant):
    name = "tallskinny"
    source_file = "tallskinny.cl"
    summary = ("small M x N, deep K: a whole tile of C per work-item over a coalesced slice "
               "of K, partial tiles reduced in a second pass (deterministic)")
    space = {"GS": [2 ** p for p in range(0, 13)], "BS": POWERS_OF_TWO,
             "tile_y": [1, 2, 4, 8, 16], "tile_x": [1, 2, 4, 8, 16]}
    defaults = {"GS": 128, "BS": 256, "tile_y": 8, "tile_x": 8}
    restrictions = (_power_of_two,)

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, params["BS"]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        return self.chunk(params) * params["BS"] * 8  # sized for double: one build fits both

    @staticmethod
    def chunk(params: Params) -> int:
        """Accumulators summed across the group per round: the largest divisor of TM*TN
        whose local array fits LOCAL_BYTES."""
        count = params["tile_y"] * params["tile_x"]
        fits = max(1, LOCAL_BYTES // (params["BS"] * 8))
        return max(d for d in range(1, count + 1) if count % d == 0 and d <= fits)

    def defines(self, params: Params) -> dict:
        return {"BS": params["BS"], "TM": params["tile_y"], "TN": params["tile_x"],
                "RCH": self.chunk(params)}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        """The tile shrinks to M x N where C is smaller than it, and GS to the groups K
        gives work to (no wasted work either way)."""
        params = {**params, "tile_y": min(params["tile_y"], m), "tile_x": min(params["tile_x"], n)}
        size = params["BS"]
        groups = min(params["GS"], ceil(k / size))  # no more groups than K gives work to
        if k + groups * size > INT_LIMIT:
            raise ParameterError(f"{self.name}: K + GS*BS = {k + groups * size} exceeds the "
                                 f"kernels' 32-bit index limit {INT_LIMIT}")
        tiles = ceil(m / params["tile_y"]) * ceil(n / params["tile_x"])
        return LaunchPlan(NDRange(groups * tiles * size, size), self.checked_defines(params),
                          self.local_mem_bytes(params, itemsize),
                          more=(reduce_step(m, n, groups),), workspace=(groups * m * n,),
                          args=("M", "N", "K", "A", "lda", "B", "ldb", "W0"),
                          kernel="partial_tiles")
