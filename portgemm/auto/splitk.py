"""Deep-K shapes: which tile configuration, and how many ways to split K (KSPLIT, in the
families whose kernels take it: xgemm, wgmma; kernels_cl/splitk.h).

The tile: of the configurations at hand (the database's entries for the device: the
deep-K class's, then the size classes' from the largest; xgemm's presets), the largest
whose block of C fits inside C (a 128 x 128 tile over a C of 64 columns computes half of
it for nothing), else the smallest; of equal ones, the first. Smaller tiles of wgmma lost
to xgemm's 64 x 64 on the H200 (bench/results/2026-11-22-h200-deep-wgmma), so a family's
tile is taken as its entry has it.

The split: a work-group computes one MWG x NWG tile over its run of K; the device runs
``slots`` groups at once (compute units x the groups one unit holds, by its registers,
local memory and work-item slots: :meth:`Traits.groups_per_unit`). A C of fewer tiles
than slots leaves the device partly idle; splitting K into S runs multiplies the groups
by S. The model takes the largest power of two S with tiles * S <= slots: one full wave.
More layers only add waves of shorter groups, each paying its start, its partial product
and its share of the reduction (on the H200 a 16 x 16 tile over K = 2^25 ran fastest at
S = 1024, 1.7x slower at 8192; a C that fills the device is not split at all). Every
run keeps at least MIN_SLABS slabs of KWG, and the workspace stays within half the
device's largest buffer. Checked against KSPLIT sweeps on an H200
(bench/results/2026-11-22-h200-dev): 1024x1024x16384 takes the 128 x 128 tile split in 2,
16384x64x4096 the 64 x 64 tile split in 2, 64x64x2^21 the 64 x 64 tile split ~500 ways.
"""

from __future__ import annotations

from math import ceil, prod
from typing import Mapping, Sequence

from ..families import get_variant
from ..runtime.device import Device
from .traits import traits

MIN_SLABS = 4
MAX_SPLIT = 8192
# the last wave (tail_split): layers tried, the flops a GPU does in the time it moves a
# byte (FP32 on an H200: ~43 TFLOPS against ~4 TB/s), and the least saving worth a split
TAIL_SPLITS = (2, 3, 4)
BALANCE = 11
TAIL_GAIN = 0.02
# registers of an xgemm work-item: its private values (accumulators, operands, staged
# loads) times REGISTER_FACTOR plus REGISTER_OVERHEAD (addresses and counters): the
# H200's 128 x 128 preset holds one group per SM, as the ~170 registers it builds to do
REGISTER_FACTOR, REGISTER_OVERHEAD = 1.5, 24


def fitting_tile(candidates: Sequence[tuple[str, Mapping]], m: int, n: int) -> int:
    """The index of the largest (variant, params) candidate whose block lies inside an
    m x n C, else of the smallest one; the first of equal ones."""
    def area(index):
        rows, cols, _ = get_variant(candidates[index][0]).block(candidates[index][1])
        return rows * cols

    def inside(index):
        rows, cols, _ = get_variant(candidates[index][0]).block(candidates[index][1])
        return rows <= m and cols <= n

    fitting = [i for i in range(len(candidates)) if inside(i)]
    if fitting:
        return max(fitting, key=lambda i: (area(i), -i))
    return min(range(len(candidates)), key=lambda i: (area(i), i))


def ksplit(device: Device, params: Mapping, m: int, n: int, k: int,
           itemsize: int, variant: str = "xgemm") -> tuple[int, str]:
    """(KSPLIT, why) for ``variant``'s ``params`` on this shape."""
    impl = get_variant(variant)
    known = traits(device)
    rows, cols, depth = impl.block(params)
    threads = prod(impl.work_group(params))
    registers = int(impl.private_values(params) * REGISTER_FACTOR) + REGISTER_OVERHEAD
    per_unit = known.groups_per_unit(threads, registers,
                                     impl.local_mem_bytes(params, itemsize))
    slots = known.compute_units * per_unit
    tiles = ceil(m / rows) * ceil(n / cols)
    slabs = ceil(k / depth)
    budget = device.max_mem_alloc_size // 2

    split = 1
    while (tiles * split * 2 <= slots and split * 2 <= MAX_SPLIT
           and slabs // (split * 2) >= MIN_SLABS
           and split * 2 * m * n * itemsize <= budget):
        split *= 2
    why = (f"split-K model: {tiles} tiles of {rows}x{cols}, "
           f"{known.compute_units} compute units x {per_unit} group(s), {slabs} slabs of "
           f"K: KSPLIT={split}")
    if split == 1 and device.type == "gpu" and per_unit == 1:
        split, saved = tail_split(tiles, slots, slabs, k, itemsize)
        if split > 1 and split * m * n * itemsize <= budget:
            why += (f"; the last of {ceil(tiles / slots)} waves is "
                    f"{tiles / slots % 1:.0%} full: KSPLIT={split} (model: {saved:.0%} "
                    f"less time)")
        else:
            split = 1
    return split, why


def tail_split(tiles: int, slots: int, slabs: int, k: int, itemsize: int) -> tuple[int, float]:
    """(KSPLIT, predicted saving) that evens out the last wave of a C of many tiles.

    A GPU runs ``slots`` groups at once, so a C of ``tiles`` groups takes
    ceil(tiles / slots) waves, the last one maybe nearly empty (4097^2 in 128 x 128 tiles
    on 132 SMs: 9 waves where 4096^2 takes 8). S layers of groups S times shorter fill
    their waves better; their partial products cost a sum that reads S slices of C and
    writes C, priced at BALANCE flops a byte against the GEMM's 2K flops an element.
    Only where a compute unit holds one group (the caller checks): with several, a unit
    short of groups in the last wave runs the rest faster (the H200's 32 x 64 medium tile,
    6 a unit, ran 1000^3 at 68% of cuBLAS split in 3 against 84% whole). Nor for CPU
    runtimes, which deal groups to their cores as the cores free up.
    """
    def waves_times_slabs(split):
        return ceil(tiles * split / slots) * ceil(slabs / split)

    whole = waves_times_slabs(1)
    best, best_time = 1, 1.0
    for split in TAIL_SPLITS:
        if slabs // split < MIN_SLABS:
            break
        time = waves_times_slabs(split) / whole + (split + 1) * itemsize * BALANCE / (2 * k)
        if time < best_time:
            best, best_time = split, time
    return (best, 1 - best_time) if best_time < 1 - TAIL_GAIN else (1, 0.0)
