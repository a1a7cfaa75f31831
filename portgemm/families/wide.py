"""wide: C of few rows and many columns (M small, N and K large), bound by reading B once.

kernels_cl/wide.cl: the work-items of a group of ``BS`` run along N, each keeping
tile_y x tile_x of C (its columns BS apart, so a group's loads of a row of B are
contiguous), adding its products over K in sequence, ``KU`` steps at a time (all their
loads first, or column by column with ``BY_COLUMN=1``, for CPUs);
``KSPLIT`` layers of groups over runs of K (kernels_cl/splitk.h) write partial products
that reduce.cl adds in order: deterministic. The row vector times a matrix (1 x K times
K x N) is its first case: a GEMM tile kernel wastes its rows there, and tallskinny's
work-items run along K, across the rows of a row-major B.
"""

from __future__ import annotations

from math import ceil

from ..runtime.ndrange import NDRange
from .base import LaunchPlan, Params, Variant, split_along_k, switches
from .phvm import POWERS_OF_TWO


class Wide(Variant):
    name = "wide"
    source_file = "wide.cl"
    summary = ("few rows of C, many columns: work-items along N over coalesced rows of B, "
               "K split across layers of groups and summed in order (deterministic)")
    space = {"BS": [16] + POWERS_OF_TWO[:-1], "tile_y": [1, 2, 4, 8, 16],
             "tile_x": [1, 2, 4, 8, 16, 32, 64], "KU": [1, 2, 4, 8], "BY_COLUMN": [0, 1],
             "KSPLIT": [2 ** p for p in range(0, 9)]}
    defaults = {"BS": 256, "tile_y": 1, "tile_x": 2, "KU": 8, "BY_COLUMN": 0, "KSPLIT": 1}
    flags = ("BY_COLUMN",)
    restrictions = (switches("BY_COLUMN"),)

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, params["BS"]

    # block() stays None: auto's tile-wave split model is not for this kernel; its layers
    # come from portgemm/auto/wide.py

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def private_values(self, params: Params) -> int:
        rows, cols = params["tile_y"], params["tile_x"]
        return rows * cols + params["KU"] * (rows + cols) + rows + cols

    def defines(self, params: Params) -> dict:
        return {"BS": params["BS"], "TM": params["tile_y"], "TN": params["tile_x"],
                "KU": params["KU"], "BY_COLUMN": params["BY_COLUMN"], "KSPLIT": params["KSPLIT"]}

    def effective(self, m: int, n: int, k: int, params: Params) -> dict:
        """tile_y shrinks to M where C has fewer rows (KSPLIT to the layers K gives
        work to, as in every family)."""
        return {**super().effective(m, n, k, params), "tile_y": min(params["tile_y"], m)}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        params = self.effective(m, n, k, params)
        size = params["BS"]
        columns = ceil(n / (size * params["tile_x"])) * size
        whole = LaunchPlan(NDRange((ceil(m / params["tile_y"]), columns), (1, size)),
                           self.checked_defines(params))
        return split_along_k(whole, m, n, params["KSPLIT"])
