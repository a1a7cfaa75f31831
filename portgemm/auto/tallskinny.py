"""The tallskinny kernel's parameters from the device's properties: a bandwidth model.

The kernel is bound by reading A and B once, so the model asks for the fewest work-items
that keep the device's memory busy. On a GPU that is Little's law: the bytes in flight
must cover the bandwidth times the latency of a loaded memory system (LOADED_LATENCY_S,
about seven times the idle latency the probe measures: 1 us fits every sweep on the H200,
bench/results/2026-11-22-h200-dev), and each work-item has one step's loads in flight,
(tile_y + tile_x) values; a power-of-two count of groups (an uneven last wave costs more
than the few work-items it saves), each group the largest power of two up to 1024 whose
share of a compute unit's registers still holds a work-item's values (its tile, one
step's loads and ITEM_REGISTERS more: a bigger group makes the compiler spill), 256 where
the register file is not known. The last group to finish adds the slices (FUSE=1), and where
the compiler takes PTX the groups sum their tiles by warp shuffles (REDUCE=1; elsewhere
its exchanges would go through local memory, and the tree does fewer): together
1.3-1.5x faster than the tree and a second launch at K = 2^21 on the H200
(bench/results/2026-11-22-h200-tallskinny).

On a CPU one SIMD vector per work-group (a CPU runtime runs a group's vectors one after
another, so a wider group would sweep its run of K once per vector) and a few groups per
core, summed by the tree and a second launch (the Intel runtime ran 3 x 3 x 2^23 2.3x
slower with the ticket counter). Two bounds on the work of one work-item, which adds its
products in sequence: at most MAX_TERMS (float32 error grows with the length of a
sequential sum: K = 3.4e7 in one work-item's hands gave 1e-4, 4096 terms keep it near
1e-6) and at least MIN_TERMS (the group's sum at the end must pay off). The tile of C a
work-item holds is all of M x N where it fits the register budget of the device type,
else the fewest tiles that do."""

from __future__ import annotations

from math import ceil, log2

from ..runtime.device import Device
from ..runtime.probe import cached_probe
from .traits import traits

MAX_TERMS = 4096
MIN_TERMS = 16
LOADED_LATENCY_S = 1e-6
DEFAULT_BANDWIDTH = 4e12  # bytes/s, for a GPU whose probe never ran (a first call)
ACCUMULATORS = {"cpu": 64, "gpu": 128}  # per work-item, by device type (others: gpu's)
GPU_GROUP = 256       # where the register file is unknown
GPU_GROUP_LIMIT = 1024
ITEM_REGISTERS = 24   # a work-item's indices, addresses and loop state beside its values
GROUPS_PER_CORE = 4


def fits_one_tile(device: Device, m: int, n: int) -> bool:
    """Whether C fits one work-item's registers; where not, a GPU is better served by a
    tiled GEMM split along K (xgemm's 16 x 16 tiles ran 2x tallskinny at 16 x 16 on the
    H200) than by tallskinny re-reading A and B for each tile of C."""
    return m * n <= ACCUMULATORS.get(device.type, ACCUMULATORS["gpu"])


def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
    """The tile of C per work-item: all of it within ``budget`` accumulators, else the
    split into the fewest tiles (then the squarest) that fits."""
    if m * n <= budget:
        return m, n
    best = None
    for rows in range(1, m + 1):
        cols = min(n, budget // rows)
        if cols < 1:
            break
        count = ceil(m / rows) * ceil(n / cols)
        key = (count, abs(rows - cols))
        if best is None or key < best[0]:
            best = (key, (rows, cols))
    return best[1]


def gpu_group(registers: int, tile: tuple[int, int], max_group: int) -> int:
    """The largest power-of-two group whose every work-item keeps its tile, one step's
    loads and ITEM_REGISTERS in its share of ``registers`` (GPU_GROUP where unknown)."""
    if not registers:
        return min(GPU_GROUP, max_group)
    need = tile[0] * tile[1] + tile[0] + tile[1] + ITEM_REGISTERS
    size = 1 << (min(GPU_GROUP_LIMIT, max_group).bit_length() - 1)
    while size > 32 and registers // size < need:
        size //= 2
    return size


def tallskinny_params(device: Device, m: int, n: int, k: int,
                      itemsize: int = 4) -> tuple[dict, str]:
    """(parameters, why) for the tallskinny kernel on this device and shape."""
    known = traits(device)
    cpu = device.type == "cpu"
    tile = tile_for(m, n, ACCUMULATORS.get(device.type, ACCUMULATORS["gpu"]))
    tiles = ceil(m / tile[0]) * ceil(n / tile[1])
    if cpu:
        size = 1 << max(0, known.simd - 1).bit_length()
        wanted, fill = known.compute_units * GROUPS_PER_CORE, f"{GROUPS_PER_CORE} groups a core"
    else:
        size = gpu_group(known.registers, tile, known.max_group)
        measured = cached_probe(device)
        bandwidth = measured.read_gbs * 1e9 if measured else DEFAULT_BANDWIDTH
        items = bandwidth * LOADED_LATENCY_S / ((tile[0] + tile[1]) * itemsize)
        wanted = 1 << max(0, round(log2(max(1.0, items / (size * tiles)))))
        fill = (f"{items:.0f} work-items keep {bandwidth * LOADED_LATENCY_S / 2**20:.1f} MB "
                f"in flight ({'probed' if measured else 'assumed'} {bandwidth / 1e12:.1f} TB/s "
                f"x {LOADED_LATENCY_S * 1e6:g} us)")
    accurate = ceil(k / (MAX_TERMS * size))
    groups = max(1, min(max(wanted, accurate), k // (MIN_TERMS * size)))
    params = {"GS": groups, "BS": size, "tile_y": tile[0], "tile_x": tile[1],
              "REDUCE": int(not cpu and device.takes_ptx), "FUSE": int(not cpu)}
    group = ("the SIMD width" if cpu else
             f"registers for {tile[0] * tile[1] + sum(tile) + ITEM_REGISTERS} values a "
             f"work-item" if known.registers else "GPU group")
    why = (f"bandwidth model: BS={size} ({group}), "
           f"GS={groups} ({fill}; each work-item sums {MIN_TERMS} to {MAX_TERMS} terms), "
           f"tile {tile[0]}x{tile[1]} ({tiles} tile{'s' if tiles > 1 else ''} of C)")
    return params, why
