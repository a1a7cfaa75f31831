"""tiled and inreg: register blocking of C, and input registers along K (oneAPI report).

Both are one kernel family (kernels_cl/register_tiled.cl): ``tiled`` is ``inreg`` with
LENGTH fixed at 1.
"""

from .base import WORK_GROUP_SPACE, Params, Variant


class Tiled(Variant):
    name = "tiled"
    source_file = "register_tiled.cl"
    summary = "each work-item computes a tile_y x tile_x block of C in registers"
    space = {"tile_y": [1, 2, 4, 8, 16], "tile_x": [1, 2, 4, 8, 16], **WORK_GROUP_SPACE}
    defaults = {"tile_y": 4, "tile_x": 4, "wg_y": 8, "wg_x": 16}

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def private_values(self, params: Params) -> int:
        """The accumulators plus LENGTH values of K for each row and column of the tile."""
        length = params.get("length", 1)
        return params["tile_y"] * params["tile_x"] + length * (params["tile_y"] + params["tile_x"])

    def defines(self, params: Params) -> dict:
        return {"TILE_Y": params["tile_y"], "TILE_X": params["tile_x"],
                "LENGTH": params.get("length", 1)}


class Inreg(Tiled):
    name = "inreg"
    summary = "tiled, plus `length` values of K per step held in input registers"
    space = {**Tiled.space, "length": [1, 2, 4, 8, 16]}
    defaults = {**Tiled.defaults, "length": 4}
