"""local: K slabs of A and B staged in local memory, plus register blocking of C.

The seed reports' shared-memory kernel (kernels_cl/local.cl): a work-group of
wg_y x wg_x work-items copies a (wg_y*tile_y) x tile_k slab of A and a
tile_k x (wg_x*tile_x) slab of B into local memory, then each work-item computes
tile_y x tile_x elements of C from it. Simple and guarded everywhere; ``xgemm`` is the
tunable fast family.
"""

from .base import WORK_GROUP_SPACE, Params, Variant


class Local(Variant):
    name = "local"
    source_file = "local.cl"
    summary = ("tiles of A and B in local memory (tile_k deep), tile_y x tile_x of C per "
               "work-item")
    space = {"tile_y": [1, 2, 4, 8], "tile_x": [1, 2, 4, 8], "tile_k": [4, 8, 16, 32, 64],
             **WORK_GROUP_SPACE}
    defaults = {"wg_y": 16, "wg_x": 16, "tile_y": 4, "tile_x": 4, "tile_k": 16}

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        tile_m = params["wg_y"] * params["tile_y"]
        tile_n = params["wg_x"] * params["tile_x"]
        return (tile_m + tile_n) * params["tile_k"] * itemsize

    def defines(self, params: Params) -> dict:
        return {"WG_Y": params["wg_y"], "WG_X": params["wg_x"], "TILE_Y": params["tile_y"],
                "TILE_X": params["tile_x"], "TILE_K": params["tile_k"]}
