"""Deep-K shapes: which tile configuration, and how many ways to split K (KSPLIT, in the
families whose kernels take it: xgemm, wgmma, mma; kernels_cl/splitk.h); and, for a
family whose work-items add all of K in sequence (vec), runs of K (:func:`run_split`).

The tile: of the configurations at hand (the database's entries for the device: the
deep-K class's, then the size classes' from the largest; those families' presets), the
one that covers C at the least cost (:func:`fitting_tile`: padding against the reuse a larger
tile gives); of equal ones the least padded, then the first. Smaller tiles of wgmma lost
to xgemm's 64 x 64 on the H200 (bench/results/2026-11-22-h200-deep-wgmma), so a family's
tile is taken as its entry has it.

The split: a work-group computes one tile of C over its run of K; the device runs
``slots`` groups at once (compute units x the groups one unit holds, by its registers,
local memory and work-item slots: :meth:`Traits.groups_per_unit`). :func:`split_time`
counts the waves of groups and the slabs of each, plus the sum of the slices; the model
takes the split it predicts fastest: among powers of two where C has fewer tiles than
slots (a C of 64 tiles of 128 x 128 on 132 SMs: 2, where every split from 2 to 16 fills
the same wave-slots; 36 tiles: 32), among 2-4 where the last wave is uneven. Every run
keeps at least MIN_SLABS slabs, and the workspace stays within half the device's largest
buffer. Checked against KSPLIT sweeps on an H200 (bench/results/2026-11-22-h200-dev,
2026-11-22-h200-deep-wgmma): 16384x64x4096 takes the 64 x 64 tile split in 2, 64x64x2^21
the 64 x 64 tile split 512 ways, 768x768x16384 the 128 x 128 tile split 32 ways (1.53x
faster than 2). A tuned entry's KSPLIT stands unless the model predicts a tenth less time
with its own: at 1024x1024x16384 the tuned 4 ran 2-5% faster than the model's 2.
"""

from __future__ import annotations

from math import ceil, prod
from typing import Mapping, Sequence

from ..families import get_variant
from ..families.base import layers_of_k
from ..runtime.device import Device
from .traits import traits

MIN_SLABS = 4
RUN_TERMS = 2048  # steps of K a work-item adds in sequence where the family splits in runs
MAX_SPLIT = 8192
# the last wave: layers tried; the flops a GPU does in the time it moves a
# byte (FP32 on an H200: ~43 TFLOPS against ~4 TB/s), and the least saving worth a split
TAIL_SPLITS = (2, 3, 4)
BALANCE = 11
TAIL_GAIN = 0.02
OVERRIDE_GAIN = 0.1  # a tuned KSPLIT gives way to the model's only for this much less time
# a tile that streams its operands -- its slab does fewer flops a byte than BALANCE, and
# its copies run ahead asynchronously (ASYNC_STAGES) -- fills at most this many groups a
# compute unit, however many the unit holds. On the H100, mma's float64 128 x 16 tile
# (3.6 flops a byte, copies 3 deep; 5 groups an SM by its 96 registers) ran
# 4096 x 16 x 4096, 16384 x 16 x 4096, 2048 x 16 x 2048 and 50000 x 16 x 1024 fastest
# at 256-391 groups, 1.05-1.20x faster than at the 512-1564 that 4 an SM asked for, and
# its 64 x 64 tile ran 16384 x 64 x 4096 whole 1.04x faster than split 4 ways. xgemm's
# 16 x 16 float32 tile, whose loads wait at each slab, kept gaining to 7 groups an SM
# (100 x 16 x 100000 split 128 ways 1.38x faster than 32)
# (bench/results/2026-11-26-h100-store-pairs)
STREAMING_GROUPS = 2
# a tile this many times a side of C or longer: on an H200, 256 x 16 x 8192 and
# 100 x 16 x 100000 ran 1.07-1.11x slower in wgmma's 128 x 64 tile (two or one tiles of C,
# split 64 and 128 ways) than in xgemm's 16 x 16 (bench/results/2026-11-26-hopper-narrow-tiles)
MOSTLY_PADDING = 4
# a wave's groups start (their first loads) and store their tiles of C: about three slabs'
# time (4-5 us for wgmma's 128 x 128 tile on the H200); fitted to the H200's splits of
# 768^3 (2 before 4) and 5000^3 (none before 3), bench/results/2026-11-22-h200-deep-wgmma
WAVE_OVERHEAD = 3


def workspace_budget(device: Device) -> int:
    """Bytes the slices of a split K may take: half the device's largest buffer."""
    return device.max_mem_alloc_size // 2


def padding(block: Sequence[int], m: int, n: int) -> float:
    """How many times over tiles of ``block`` (rows, columns, ...) cover C along its more
    padded side: 1 where they fit it exactly, rows / m for a tile taller than C."""
    rows, cols = block[:2]
    return max(ceil(m / rows) * rows / m, ceil(n / cols) * cols / n)


def fitting_tile(candidates: Sequence[tuple[str, Mapping]], m: int, n: int,
                 most_padding: float = MOSTLY_PADDING) -> int:
    """The index of the (variant, params) candidate whose tiles cover an m x n C at the
    least cost: C padded to whole tiles, times the loads a tile's product takes per
    multiply-add, (rows + cols) / (rows * cols). Of equal ones, the least padded, then
    the first. A larger tile can beat a smaller one that lies inside C: 48 x 8192 x 8192
    ran in 64 x 64 tiles (a quarter of them padding) 2.4x faster than in 16 x 16 ones.
    A tile ``most_padding`` times a side of C or longer is weighed only where every tile
    is: C is then one or two such tiles, which leaves the split alone to fill the device."""
    blocks = [get_variant(variant).block(params)[:2] for variant, params in candidates]

    def cost(index):
        rows, cols = blocks[index]
        padded = ceil(m / rows) * rows * ceil(n / cols) * cols
        return padded * (rows + cols) / (rows * cols), padded, index

    fitting = [index for index, block in enumerate(blocks)
               if padding(block, m, n) < most_padding]
    return min(fitting or range(len(candidates)), key=cost)


def ksplit(device: Device, params: Mapping, m: int, n: int, k: int, itemsize: int,
           variant: str = "xgemm") -> tuple[int, str]:
    """(KSPLIT, why) for ``variant``'s ``params`` on this shape: the split of least
    predicted time (:func:`split_time`) among powers of two where C has fewer tiles than
    the device has slots, among TAIL_SPLITS where its last wave is uneven on a GPU whose
    units hold one group each, else 1. ``params``' own KSPLIT > 1 (a tuned entry's)
    stands unless the model predicts OVERRIDE_GAIN less time with its own."""
    impl = get_variant(variant)
    known = traits(device)
    rows, cols, depth = impl.block(params)
    per_unit = groups_per_unit(device, params, itemsize, variant)
    streaming = (impl.copies_ahead(params)
                 and 2 * rows * cols / ((rows + cols) * itemsize) < BALANCE)
    if streaming:
        per_unit = min(per_unit, STREAMING_GROUPS)
    slots = known.compute_units * per_unit
    tiles = ceil(m / rows) * ceil(n / cols)
    slabs = ceil(k / depth)
    budget = workspace_budget(device)
    pass_share = m * n * itemsize * BALANCE / (2 * slots * rows * cols * depth)

    def time(split):
        return split_time(split, tiles, slots, slabs, pass_share)

    def allowed(split):
        return slabs // split >= MIN_SLABS and split * m * n * itemsize <= budget

    why = (f"split-K model: {tiles} tiles of {rows}x{cols}, {known.compute_units} compute "
           f"units x {per_unit} group(s){' (a streaming tile)' if streaming else ''}, "
           f"{slabs} slabs of K")
    if tiles < slots:
        tried = [2 ** i for i in range(1, MAX_SPLIT.bit_length())]
    elif device.type == "gpu" and per_unit == 1:
        tried = list(TAIL_SPLITS)
        why += (f"; the last of {ceil(tiles / slots)} waves is {tiles / slots % 1:.0%} "
                f"full")
    else:
        tried = []
    split = min([1] + [s for s in tried if allowed(s)], key=time)
    if time(split) > (1 - TAIL_GAIN) * time(1):
        split = 1

    def run(split: int, how: str) -> tuple[int, str]:
        """``split`` cut to the layers K's slabs give work to, as the plan runs it."""
        layers = layers_of_k(split, k, depth)
        cut = f", cut to the {layers} layers the slabs give work to" if layers < split else ""
        return layers, f"{why}: KSPLIT={split} ({how}{cut})"

    given = params.get("KSPLIT", 1)
    if given > 1:
        if time(split) > (1 - OVERRIDE_GAIN) * time(given):
            return run(given, "as tuned")
        why += f"; the tuned KSPLIT={given} predicted {1 - time(split) / time(given):.0%} slower"
    if split == 1:
        return 1, f"{why}: KSPLIT=1"
    return run(split, f"model: {1 - time(split) / time(1):.0%} less time than whole")


def groups_per_unit(device: Device, params: Mapping, itemsize: int, variant: str) -> int:
    """Work-groups of ``variant``'s ``params`` that one compute unit holds at once, by
    their work-items, registers and local memory (:meth:`Traits.groups_per_unit`)."""
    impl = get_variant(variant)
    return traits(device).groups_per_unit(prod(impl.work_group(params)),
                                          impl.registers(params, itemsize),
                                          impl.local_mem_bytes_on(device, params, itemsize))


def waves(device: Device, params: Mapping, m: int, n: int, itemsize: int,
          variant: str) -> int:
    """The rounds in which the device runs an m x n C's tiles of ``variant``'s
    ``params``, K whole: the tiles over compute units x the groups a unit holds."""
    rows, cols, _ = get_variant(variant).block(params)
    slots = device.compute_units * groups_per_unit(device, params, itemsize, variant)
    return ceil(ceil(m / rows) * ceil(n / cols) / slots)


def run_split(device: Device, params: Mapping, m: int, n: int, k: int,
              itemsize: int) -> tuple[int, str]:
    """(KSPLIT, why) for a family whose work-items add all their steps of K in sequence
    (vec): runs of at most RUN_TERMS steps, a power of two of them (each KSPLIT is a
    kernel build of its own), as many as the workspace budget allows. A tuned KSPLIT > 1
    stands. On PoCL runs of 2048 made deep K 1.13-1.93x faster (a work-item's run of B
    stays in the cache) and the error 2-21x smaller (64 x 64 x 2^18: 9.3e-6 whole,
    8.4e-7 in runs); K up to 4096 was level (bench/results/2026-11-23-cpu-vec-runs)."""
    given = params.get("KSPLIT", 1)
    if given > 1:
        return given, f"KSPLIT={given} as tuned"
    budget = workspace_budget(device)
    runs = 1 << max(0, ceil(k / RUN_TERMS) - 1).bit_length()
    split = max(1, min(runs, budget // max(1, m * n * itemsize)))
    return split, (f"KSPLIT={split}: K in {split} runs of at most {ceil(k / split)} steps, "
                   f"summed in order")


def split_time(split: int, tiles: int, slots: int, slabs: int, pass_share: float) -> float:
    """The time of K split ``split`` ways, in the time one group takes for one slab.

    A device runs ``slots`` groups at once, so ``tiles`` x ``split`` groups of
    ceil(slabs / split) slabs each (and WAVE_OVERHEAD for their start and their stores)
    take ceil(tiles split / slots) waves: a C of fewer tiles
    than slots leaves the device partly idle unless K is split, and a C of many tiles
    may end in a nearly empty wave (4097^2 in 128 x 128 tiles on 132 SMs: 9 waves, the
    last a quarter full, where 4096^2 takes 8), which shorter groups fill better. The
    partial products cost a sum that reads ``split`` slices of C and writes C, a pass
    over C taking ``pass_share``: its bytes at BALANCE flops a byte against a full
    device's flops in that unit. On the H200 this ranked the splits of a C of 36 tiles of
    128 x 128 (768 x 768 x 16384) as measured: 32 and 16 fastest, 8 1.17x, 4 and 2 1.53x
    (bench/results/2026-11-22-h200-deep-wgmma)."""
    waves = ceil(tiles * split / slots) * (ceil(slabs / split) + WAVE_OVERHEAD)
    return waves + ((split + 1) * pass_share if split > 1 else 0.0)
