"""tallskinny: C = A @ B for small M, N and a deep K, bound by reading A and B once.

kernels_cl/tallskinny.cl: GS work-groups per TG tiles of C of tile_y x tile_x (the
kernel's TM x TN), BS work-items per tile; each work-item accumulates its tile over a
grid-stride (coalesced) slice of K, KU steps' loads at a time; each group sums its
work-items (REDUCE 0: a tree in local memory; 1: a butterfly across runs of 32
work-items, warp shuffles on NVIDIA) and writes a partial tile into a workspace, and the
GS partial tiles are added into C in a fixed order (FUSE 0: kernels_cl/reduce.cl, a
second launch; 1: the last group of each tile, counted by an integer ticket):
deterministic either way. ROWVEC=1 (a CPU's form, groups of one work-item) walks the
work-item's run of K step by step with each row of its tile one vector, the width of
tile_x rounded up to a power of two, or several vectors of 16 where tile_x is wider.
"""

from __future__ import annotations

from math import ceil, gcd

from ..runtime.device import Device
from ..runtime.ndrange import NDRange
from .base import (HALVING_GROUPS, LaunchPlan, Params, Variant, check_index_reach,
                   groups_in_reach, pocl_5_or_later, reduce_step, restriction, switches)
from .phvm import POWERS_OF_TWO

LOCAL_BYTES = 16384  # local memory for the group's sums, well inside every device's 32 KB+
LANES = 32  # the run of work-items a butterfly (REDUCE=1) exchanges across


@restriction(f"REDUCE=1 needs BS >= {LANES} (its butterfly runs across {LANES} work-items)")
def _butterfly_lanes(p: Params) -> bool:
    return not p["REDUCE"] or p["BS"] >= LANES


@restriction("ROWVEC=1 needs BS=1 (its work-item walks its run of K step by step)")
def _rows_alone(p: Params) -> bool:
    return not p["ROWVEC"] or p["BS"] == 1


ROW_VECTOR = 16       # ROWVEC: OpenCL's widest vector
MAX_ROW_VECTORS = 16  # ROWVEC: vectors a row of the tile at most


@restriction(f"ROWVEC=1 needs tile_x <= {ROW_VECTOR * MAX_ROW_VECTORS} (a row of at most "
             f"{MAX_ROW_VECTORS} vectors of {ROW_VECTOR})")
def _row_fits_vectors(p: Params) -> bool:
    return not p["ROWVEC"] or p["tile_x"] <= ROW_VECTOR * MAX_ROW_VECTORS


FLAT_COLUMNS = range(2, ROW_VECTOR)  # FLAT: tiles this many columns wide


@restriction(f"FLAT=1 needs ROWVEC=1 and a tile_x of {FLAT_COLUMNS.start}-"
             f"{FLAT_COLUMNS.stop - 1} (B's rows of the tile as whole vectors of "
             f"{ROW_VECTOR})")
def _flat_rows(p: Params) -> bool:
    return not p["FLAT"] or (p["ROWVEC"] == 1 and p["tile_x"] in FLAT_COLUMNS)


def flat_block(columns: int) -> tuple[int, int]:
    """FLAT's block of a row-major B of ``columns`` columns: (steps of K, vectors of
    ROW_VECTOR values) that the rows fill exactly."""
    common = gcd(columns, ROW_VECTOR)
    return ROW_VECTOR // common, columns // common


def flat_values(rows: int, columns: int, sums: int) -> int:
    """FLAT's private values: KU (``sums``) blocks' sums of a tile of ``rows`` x
    ``columns`` and B's vectors, and a block's steps of A for each row."""
    steps, vectors = flat_block(columns)
    return sums * (rows + 1) * vectors * ROW_VECTOR + rows * steps


def row_width(columns: int) -> int:
    """ROWVEC's vector: ``columns`` rounded up to an OpenCL vector width (1, 2, 4, 8, 16),
    16 where a row takes several."""
    return min(ROW_VECTOR, 1 << max(0, columns - 1).bit_length())


def row_vectors(columns: int) -> int:
    """ROWVEC's vectors a row of ``columns``."""
    return ceil(columns / row_width(columns))


# work-items x accumulators past which Intel's CPU compiler may crash (a segfault) on the
# GPU form's tree sum: 14 x 12 and 16 x 12 tiles in groups of 128, 12 x 12 in 256 crashed,
# 12 x 12 in 128 and 16 x 16 in 64 built (docs/known-issues.md)
INTEL_TREE_VALUES = 16384


def intel_tree_crashes(params: Params, device: Device) -> bool:
    """Whether Intel's CPU runtime may crash building the GPU form (ROWVEC=0) with the
    tree sum (REDUCE=0) for these parameters: not PoCL, not a GPU, and more work-items
    times accumulators than INTEL_TREE_VALUES."""
    return (device.type == "cpu" and "Intel" in device.platform and not params["ROWVEC"]
            and not params["REDUCE"] and params["BS"] * params["TG"] * params["tile_y"]
            * params["tile_x"] > INTEL_TREE_VALUES)


# tallskinny.cl's ROW_CHUNK: the rows' forms sum K in chunks of this many steps
ROW_CHUNK = 1024


def index_tail(params: Params) -> int:
    """How far past a group's last step of K the kernel's loop forms an index: the rows'
    forms (ROWVEC) a chunk's end, ROW_CHUNK on (a K within it of 2^31 wrapped and read
    8 GiB before A: a segfault), the lanes' form its KU steps of the group."""
    return ROW_CHUNK if params["ROWVEC"] else params["KU"] * params["BS"]


def butterfly_miscompiled(device: Device) -> bool:
    """PoCL 5.0 (the GPU machine's CPU device) returned wrong sums for the butterfly's
    exchanges through local memory in bench/results/2026-11-22-h200-tallskinny."""
    return pocl_5_or_later(device)


class TallSkinny(Variant):
    name = "tallskinny"
    source_file = "tallskinny.cl"
    stacks_scratch = True  # FUSE's slices and tickets, a product's own (partial_tiles)
    summary = ("small M x N, deep K: a whole tile of C per work-item over a coalesced slice "
               "of K, partial tiles reduced in a second pass or by the last work-group "
               "(deterministic)")
    # tile_x past 16: ROWVEC's rows of several vectors
    space = {"GS": [2 ** p for p in range(0, 13)], "BS": POWERS_OF_TWO,
             "tile_y": [1, 2, 4, 8, 16], "tile_x": [1, 2, 4, 8, 16, 32, 64, 128, 256],
             "REDUCE": [0, 1], "FUSE": [0, 1], "TG": [1, 2, 4], "KU": [1, 2, 4],
             "ROWVEC": [0, 1], "FLAT": [0, 1]}
    defaults = {"GS": 128, "BS": 256, "tile_y": 8, "tile_x": 8, "REDUCE": 0, "FUSE": 0,
                "TG": 1, "KU": 1, "ROWVEC": 0, "FLAT": 0}
    flags = ("REDUCE", "FUSE", "ROWVEC", "FLAT")
    restrictions = (HALVING_GROUPS, switches("REDUCE", "FUSE", "ROWVEC", "FLAT"),
                    _butterfly_lanes, _rows_alone, _row_fits_vectors, _flat_rows)

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        found = super().problems(params, device, itemsize)
        if params["REDUCE"] and butterfly_miscompiled(device):
            found.append("REDUCE=1 through local memory gives wrong sums on PoCL 5 (right on "
                         "PoCL 3 and Intel's runtime, cause not found): use REDUCE=0")
        if intel_tree_crashes(params, device):
            found.append(f"the tree sum (REDUCE=0) of {params['BS'] * params['TG']} "
                         f"work-items x {params['tile_y'] * params['tile_x']} accumulators "
                         f"(over {INTEL_TREE_VALUES}) crashes Intel's CPU compiler: use "
                         f"ROWVEC=1, REDUCE=1, a smaller tile or smaller groups")
        return found

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, params["BS"] * params["TG"]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return params["tile_y"], params["tile_x"]

    def private_values(self, params: Params) -> int:
        """ROWVEC: KU sums of the tile's rows of vectors, one vector of B's row at a time
        (each is used as it is loaded) and the rows' values of A; FLAT: KU blocks' sums
        and B's vectors, and a block's steps of A for each row; else the common count."""
        if not params["ROWVEC"]:
            return super().private_values(params)
        if params["FLAT"]:
            return flat_values(params["tile_y"], params["tile_x"], params["KU"])
        width = row_width(params["tile_x"])
        row = width * row_vectors(params["tile_x"])
        return params["KU"] * (params["tile_y"] * row + width) + params["tile_y"]

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        """Sized for double: one check fits both types. Each of the TG blocks has its own."""
        size = params["BS"]
        values = params["tile_y"] * params["tile_x"]
        if params["REDUCE"]:  # each run's sums, and the exchange where it is not a shuffle
            scratch = size // LANES * values + size
        else:
            scratch = self.chunk(params) * size
        fused = max(size, values) if params["FUSE"] else 0  # the last group's parts
        return (scratch + values + fused) * 8 * params["TG"]

    @staticmethod
    def chunk(params: Params) -> int:
        """Accumulators summed across the group per round: the largest divisor of TM*TN
        whose local array (one per tile the group holds) fits LOCAL_BYTES."""
        count = params["tile_y"] * params["tile_x"]
        fits = max(1, LOCAL_BYTES // (params["BS"] * params["TG"] * 8))
        return max(d for d in range(1, count + 1) if count % d == 0 and d <= fits)

    def defines(self, params: Params) -> dict:
        return {"BS": params["BS"], "TM": params["tile_y"], "TN": params["tile_x"],
                "RCH": self.chunk(params), "REDUCE": params["REDUCE"], "FUSE": params["FUSE"],
                "TG": params["TG"], "KU": params["KU"], "ROWVEC": params["ROWVEC"],
                "VN": row_width(params["tile_x"]), "RV": row_vectors(params["tile_x"]),
                **self._flat_defines(params)}

    @staticmethod
    def _flat_defines(params: Params) -> dict:
        steps, vectors = flat_block(params["tile_x"])
        return {"FLAT": params["FLAT"], "FS": steps, "FV": vectors}

    def _first_step(self, params: Params, itemsize: int) -> dict:
        """The partial-tiles launch's defines, kernel and local memory."""
        return dict(defines=self.checked_defines(params), kernel="partial_tiles",
                    local_mem_bytes=self.local_mem_bytes(params, itemsize))

    def effective(self, m: int, n: int, k: int, params: Params) -> dict:
        """The tile shrinks to M x N where C is smaller than it (FLAT to 0 below its
        columns: a row of one column is a plain row vector), GS to the groups K gives
        work to (FUSE to 0 at one group), and TG to the largest count up to it that
        divides the tiles of C (no wasted work either way)."""
        params = {**super().effective(m, n, k, params), "tile_y": min(params["tile_y"], m),
                  "tile_x": min(params["tile_x"], n)}
        if params["FLAT"] and params["tile_x"] not in FLAT_COLUMNS:  # what resolve allows
            params["FLAT"] = 0
        tiles = ceil(m / params["tile_y"]) * ceil(n / params["tile_x"])
        params["TG"] = max(d for d in range(1, min(params["TG"], tiles) + 1) if tiles % d == 0)
        params["GS"] = groups_in_reach(k, min(params["GS"], ceil(k / params["BS"])),
                                       params["BS"], index_tail(params))
        if params["GS"] == 1:  # the one partial tile is C's: nothing to sum (plan)
            params["FUSE"] = 0
        return params

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        """GS groups along K for each TG tiles of C (the shape's :meth:`effective`
        parameters), their partial tiles summed by a second launch or the last group."""
        params = self.effective(m, n, k, params)
        tiles = ceil(m / params["tile_y"]) * ceil(n / params["tile_x"])
        size, groups = params["BS"], params["GS"]
        check_index_reach(self.name, k, groups, size, index_tail(params))
        ndrange = NDRange(groups * tiles * size, size * params["TG"])
        slices = ("M", "N", "K", "A", "lda", "B", "ldb")
        if groups == 1:
            # the one partial tile is C's (row-major, ldc = N, as the slices lie): no
            # workspace, no sum, no ticket; a launch saved (15-60 us on Intel's CPU
            # runtime, 5 us on a GPU)
            return LaunchPlan(ndrange, **self._first_step(params, itemsize),
                              args=slices + ("C",))
        common = dict(self._first_step(params, itemsize), workspace=(groups * m * n,))
        if params["FUSE"]:
            return LaunchPlan(ndrange, counters=tiles // params["TG"], **common,
                              args=slices + ("W0", "C", "ldc", "Z0"))
        return LaunchPlan(ndrange, more=(reduce_step(m, n, groups),), **common,
                          args=slices + ("W0",))
