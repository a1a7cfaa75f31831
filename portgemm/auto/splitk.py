"""Deep-K shapes: which tile configuration, and how many ways to split K (xgemm's KSPLIT).

The tile: of the configurations at hand (the database's entries for the device, the
family's presets), the largest whose MWG x NWG fits inside C (a 128 x 128 tile over a C
of 64 columns computes half of it for nothing), else the smallest.

The split: a work-group computes one MWG x NWG tile over its run of K; the device runs
``slots`` groups at once (compute units x the groups one unit holds, by its registers,
local memory and work-item slots: :meth:`Traits.groups_per_unit`). Splitting K into S
runs multiplies the groups by S and divides each group's work by S, at the price of
writing and adding S partial products. The model picks the S (a power of two) that
minimises

    waves(S) * ceil(slabs / S) + S,     waves(S) = ceil(tiles * S / slots)

in units of one group's slab of KWG values of K: the K loop the device really runs (whole
waves: a last, partial wave costs as much as a full one) plus one slab per layer for its
partial product. Every run keeps at least MIN_SLABS slabs, and the workspace stays
within half the device's largest buffer. Checked on an H200 against a KSPLIT sweep
(bench/results/2026-11-22-h200-dev): 1024x1024x16384 takes the 128 x 128 tile split in 2,
16384x64x4096 the 64 x 64 tile split in 2, 64x64x2^21 the 64 x 64 tile split in 256.
"""

from __future__ import annotations

from math import ceil
from typing import Mapping, Sequence

from ..families import get_variant
from ..runtime.device import Device
from .traits import traits

MIN_SLABS = 4
MAX_SPLIT = 1024
REGISTER_OVERHEAD = 24


def fitting_tile(candidates: Sequence[Mapping], m: int, n: int) -> Mapping:
    """The largest candidate tile inside an m x n C, else the smallest one."""
    def area(params):
        return params["MWG"] * params["NWG"]

    inside = [p for p in candidates if p["MWG"] <= m and p["NWG"] <= n]
    return max(inside, key=area) if inside else min(candidates, key=area)


def ksplit(device: Device, params: Mapping, m: int, n: int, k: int,
           itemsize: int) -> tuple[int, str]:
    """(KSPLIT, why) for xgemm ``params`` (MWG, NWG, KWG, MDIMC, NDIMC, ...) on this shape."""
    xgemm = get_variant("xgemm")
    known = traits(device)
    threads = params["MDIMC"] * params["NDIMC"]
    per_unit = known.groups_per_unit(threads,
                                     xgemm.private_values(params) + REGISTER_OVERHEAD,
                                     xgemm.local_mem_bytes(params, itemsize))
    slots = known.compute_units * per_unit
    tiles = ceil(m / params["MWG"]) * ceil(n / params["NWG"])
    slabs = ceil(k / params["KWG"])
    budget = device.max_mem_alloc_size // 2

    def cost(split: int) -> int:
        return ceil(tiles * split / slots) * ceil(slabs / split) + split

    split, best = 1, cost(1)
    candidate = 2
    while (candidate <= MAX_SPLIT and slabs // candidate >= MIN_SLABS
           and candidate * m * n * itemsize <= budget):
        if cost(candidate) < best:
            split, best = candidate, cost(candidate)
        candidate *= 2
    why = (f"split-K model: {tiles} tiles of {params['MWG']}x{params['NWG']}, "
           f"{known.compute_units} compute units x {per_unit} group(s), {slabs} slabs of "
           f"K: KSPLIT={split}")
    return split, why
