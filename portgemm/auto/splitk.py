"""How many ways to split K (xgemm's KSPLIT) for a shape with few tiles of C.

A work-group computes one MWG x NWG tile over its run of K; the device runs ``slots``
groups at once (one per compute unit: the tuned GPU tiles hold one group per unit, a CPU
core runs one at a time). Splitting K into S runs multiplies the groups by S and divides
each group's work by S, at the price of writing and adding S partial products. The model
picks the S (a power of two) that minimises

    waves(S) * ceil(slabs / S) + S,     waves(S) = ceil(tiles * S / slots)

in units of one group's slab of KWG values of K: the K loop the device really runs (whole
waves: a last, partial wave costs as much as a full one) plus one slab per layer for its
partial product. Every run keeps at least MIN_SLABS slabs, and the workspace stays
within half the device's largest buffer.
"""

from __future__ import annotations

from math import ceil
from typing import Mapping

from ..runtime.device import Device
from .traits import traits

MIN_SLABS = 4
MAX_SPLIT = 512


def ksplit(device: Device, params: Mapping, m: int, n: int, k: int,
           itemsize: int) -> tuple[int, str]:
    """(KSPLIT, why) for xgemm-style ``params`` (MWG, NWG, KWG) on this shape."""
    slots = traits(device).compute_units
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
    why = (f"split-K model: {tiles} tiles of {params['MWG']}x{params['NWG']} on {slots} "
           f"compute units, {slabs} slabs of K: KSPLIT={split}")
    return split, why
