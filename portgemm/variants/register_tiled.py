"""tiled and inreg: register blocking of C, and input registers along K (oneAPI report).

Both are one kernel family (kernels_cl/register_tiled.cl): ``tiled`` is ``inreg`` with
LENGTH fixed at 1.
"""

from .base import Params, Variant, restriction
from .naive import WORK_GROUP_SPACE

MAX_PRIVATE_VALUES = 512  # registers per work-item past which every device spills


@restriction(f"tile_y * tile_x plus the input registers must stay under {MAX_PRIVATE_VALUES} values")
def _fits_registers(p: Params) -> bool:
    length = p.get("length", 1)
    return p["tile_y"] * p["tile_x"] + length * (p["tile_y"] + p["tile_x"]) <= MAX_PRIVATE_VALUES


class Tiled(Variant):
    name = "tiled"
    source_file = "register_tiled.cl"
    summary = "each work-item computes a tile_y x tile_x block of C in registers"
    space = {"tile_y": [1, 2, 4, 8, 16], "tile_x": [1, 2, 4, 8, 16], **WORK_GROUP_SPACE}
    defaults = {"tile_y": 4, "tile_x": 4, "wg_y": 8, "wg_x": 16}
    restrictions = (_fits_registers,)

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def defines(self, params: Params) -> dict:
        return {"TILE_Y": params["tile_y"], "TILE_X": params["tile_x"],
                "LENGTH": params.get("length", 1)}


class InputRegisters(Tiled):
    name = "inreg"
    summary = "tiled, plus `length` values of K per step held in input registers"
    space = {**Tiled.space, "length": [1, 2, 4, 8, 16]}
    defaults = {**Tiled.defaults, "length": 4}
