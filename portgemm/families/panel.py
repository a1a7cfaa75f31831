"""panel: BLIS's register tile for CPU runtimes that vectorise across work-items
(kernels_cl/panel.cl).

A work-group is one SIMD vector of ``wg_x`` work-items; each holds ``tile_y`` rows x
``tile_x`` columns of C (its columns ``wg_x`` apart), so a step of K is ``tile_y``
broadcasts of A, ``tile_x`` vector loads of B and ``tile_y * tile_x`` vector FMAs, with no
local memory and no barrier. The group walks ``MB`` rows of C over panels of ``KC`` steps
of K. ``PACKED=1`` first copies B into contiguous panels (one more launch and a
workspace), which is what lets the panel of B stay in L1; ``PACK_A=1`` copies A into
panels of ``tile_y`` rows as well, which repays its pass over A only where many groups of
columns read A again (off unless asked for). ``portgemm/auto/packing.py`` fits the tile
and ``PACKED`` to the shape.
"""

from __future__ import annotations

from math import ceil

from ..runtime.ndrange import NDRange
from .base import LaunchPlan, Params, Step, Variant, restriction, switches
from .packing import pack_a_step, pack_b_step


@restriction("MB must be a multiple of tile_y (a group walks its rows tile_y at a time)")
def _whole_tiles(p: Params) -> bool:
    return p["MB"] % p["tile_y"] == 0


class Panel(Variant):
    name = "panel"
    source_file = "panel.cl"
    summary = ("one SIMD vector a work-group, tile_y x tile_x of C a work-item over panels "
               "of K, A and B packed into panels first: no local memory, no barrier (for CPU "
               "runtimes that vectorise across work-items)")
    space = {"tile_y": [4, 6, 8, 12], "tile_x": [1, 2, 3, 4, 6], "wg_x": [8, 16],
             "KC": [128, 256, 384, 512], "MB": [96, 128, 192, 256, 384, 512],
             "PACKED": [0, 1], "PACK_A": [0, 1]}
    defaults = {"tile_y": 8, "tile_x": 3, "wg_x": 16, "KC": 256, "MB": 256, "PACKED": 1,
                "PACK_A": 0}
    flags = ("PACKED", "PACK_A")
    interleaved_columns = True
    restrictions = (_whole_tiles, switches("PACKED", "PACK_A"))

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, params["wg_x"]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def defines(self, params: Params) -> dict:
        return {"MR": params["tile_y"], "NV": params["tile_x"], "LANES": params["wg_x"],
                "KC": params["KC"], "MB": params["MB"], "PACKED": params["PACKED"],
                "PACK_A": params["PACK_A"]}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        rows, lanes = params["tile_y"], params["wg_x"]
        width = params["tile_x"] * lanes  # NR: columns of C a group holds
        ndrange = NDRange((ceil(m / params["MB"]), ceil(n / width) * lanes), (1, lanes))
        defines = self.checked_defines(params)
        packs, workspace = [], []
        b, ldb = "B", "ldb"
        if params["PACKED"]:
            pack_b, packed_b = pack_b_step(n, k, width, f"W{len(workspace)}", lanes)
            b, ldb = f"W{len(workspace)}", width
            packs.append(pack_b)
            workspace.append(packed_b)
        a = "A"
        if params["PACK_A"]:
            pack_a, packed_a = pack_a_step(m, k, rows, f"W{len(workspace)}", lanes)
            a = f"W{len(workspace)}"
            packs.append(pack_a)
            workspace.append(packed_a)
        if not packs:
            return LaunchPlan(ndrange, defines)
        product = Step(ndrange, defines, args=("M", "N", "K", a, "lda", b, ldb, "C", "ldc"))
        return LaunchPlan.starting_with(packs[0], more=(*packs[1:], product),
                                        workspace=tuple(workspace))
