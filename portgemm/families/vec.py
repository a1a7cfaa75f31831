"""vec: register blocking with explicit vectors (kernels_cl/vec.cl).

Each work-item computes tile_y x tile_x of C as vectors of ``vw`` elements, one rank-1
update per k, with no local memory and no barrier: the kernel for CPU compilers that
vectorise the code as written rather than across work-items (PoCL; also fine on Intel's
runtime). ``tile_x`` is in elements (the common vocabulary) and a multiple of ``vw``.
``PACKED=1`` first copies B into panels of ``tile_x`` columns (one more launch and a
workspace of B's size), so that a work-item's steps of B lie one after another.
``KSPLIT`` layers of work-items over runs of K (kernels_cl/splitk.h) write partial
products that a last launch sums in order: a work-item adds its products in sequence,
and a deep K loses float32 accuracy.
"""

from .base import (LaunchPlan, Params, Step, Variant, as_count, restriction, split_along_k,
                   switches)
from .packing import pack_b_step

VECTOR_WIDTHS = (1, 2, 4, 8, 16)


@restriction("vw must be 1, 2, 4, 8 or 16, and tile_x a multiple of it")
def _runs(p: Params) -> bool:
    return p["vw"] in VECTOR_WIDTHS and p["tile_x"] % p["vw"] == 0


@restriction("KSPLIT must be at least 1")
def _layers(p: Params) -> bool:
    return p["KSPLIT"] >= 1


class Vec(Variant):
    name = "vec"
    source_file = "vec.cl"
    summary = ("tile_y x tile_x of C per work-item as vectors of vw, no local memory, no "
               "barrier (for CPU compilers that vectorise the kernel as written)")
    space = {"tile_y": [2, 4, 6, 8], "tile_x": [16, 32, 48, 64], "vw": [8, 16],
             "wg_y": [1, 2, 4, 8, 16, 32], "wg_x": [1, 2, 4, 8], "PACKED": [0, 1]}
    defaults = {"tile_y": 8, "tile_x": 16, "vw": 16, "wg_y": 2, "wg_x": 4, "PACKED": 0,
                "KSPLIT": 1}
    flags = ("PACKED",)
    restrictions = (_runs, _layers, switches("PACKED"))
    splits_runs_of_k = True

    def translate(self, params: Params) -> dict:
        """A ``tile_x`` given without ``vw`` takes the widest vector that divides it, so
        the shared ``--tile 8x8`` runs in vectors of 8 instead of failing on 16."""
        params = dict(params)
        if "tile_x" in params and "vw" not in params:
            tile_x = as_count(params["tile_x"])
            if tile_x:
                params["vw"] = max(w for w in VECTOR_WIDTHS if tile_x % w == 0)
        return params

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def private_values(self, params: Params) -> int:
        """Accumulators and one step's operands, in elements."""
        return params["tile_y"] * params["tile_x"] + params["tile_x"] + params["vw"]

    def defines(self, params: Params) -> dict:
        return {"TILE_Y": params["tile_y"], "TILE_X": params["tile_x"], "VW": params["vw"],
                "PACKED": params["PACKED"], "KSPLIT": params["KSPLIT"]}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        """KSPLIT > 1: layers along K (those K gives work to: :meth:`effective`) and the
        sum of their slices. PACKED=1: B is first packed in panels of tile_x columns
        (kernels_cl/pack.cl, into the last workspace buffer), which the kernel reads with
        ldb = tile_x."""
        params = self.effective(m, n, k, params)
        plan = split_along_k(super().plan(m, n, k, params, itemsize), m, n, params["KSPLIT"])
        if not params["PACKED"]:
            return plan
        packed = f"W{len(plan.workspace)}"
        # a work-item a run of steps: PoCL runs a group's work-items one after another
        pack, elements = pack_b_step(n, k, params["tile_x"], packed, by_rows=True)
        args = tuple({"B": packed, "ldb": params["tile_x"]}.get(arg, arg) for arg in plan.args)
        product = Step(plan.ndrange, plan.defines, args=args)
        return LaunchPlan.starting_with(pack, more=(product,) + plan.more,
                                        workspace=plan.workspace + (elements,))
