"""The tallskinny kernel's parameters from the device's properties: an occupancy model.

The kernel is bound by reading A and B once, so the model asks for the fewest work-items
that keep the device's memory busy: on a GPU one full wave of resident work-items
(work-group 256, enough groups to fill every compute unit as far as its registers allow:
a work-item holds its tile's accumulators, its operands and about REGISTER_OVERHEAD
more), on a CPU one SIMD
vector per work-group (a CPU runtime runs a group's vectors one after another, so a
wider group would sweep its run of K once per vector) and a few groups per core. Two
bounds on the work of one work-item, which adds its products in sequence: at most
MAX_TERMS (float32 error grows with the length of a sequential sum: K = 3.4e7 in one
work-item's hands gave 1e-4, 4096 terms keep it near 1e-6) and at least MIN_TERMS (the
group's tree at the end must pay off). The tile of C a work-item holds is all of M x N
where it fits the register budget of the device type, else the fewest tiles that do.
"""

from __future__ import annotations

from math import ceil

from ..runtime.device import Device
from .traits import traits

MAX_TERMS = 4096
MIN_TERMS = 16
REGISTER_OVERHEAD = 24  # addresses, loop counters and the like, beside the tile
ACCUMULATORS = {"cpu": 64, "gpu": 128}  # per work-item, by device type (others: gpu's)
GPU_GROUP = 256
GROUPS_PER_CORE = 4


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


def tallskinny_params(device: Device, m: int, n: int, k: int) -> tuple[dict, str]:
    """(parameters, why) for the tallskinny kernel on this device and shape."""
    known = traits(device)
    cpu = device.type == "cpu"
    tile = tile_for(m, n, ACCUMULATORS.get(device.type, ACCUMULATORS["gpu"]))
    tiles = ceil(m / tile[0]) * ceil(n / tile[1])
    if cpu:
        size = 1 << max(0, known.simd - 1).bit_length()
        wanted, fill = known.compute_units * GROUPS_PER_CORE, f"{GROUPS_PER_CORE} groups a core"
    else:
        size = min(GPU_GROUP, known.max_group)
        registers = tile[0] * tile[1] + tile[0] + tile[1] + REGISTER_OVERHEAD
        resident = known.compute_units * known.items_per_unit(registers)
        wanted = ceil(resident / (size * tiles))
        fill = f"one wave of {resident} resident work-items of ~{registers} registers"
    accurate = ceil(k / (MAX_TERMS * size))
    groups = max(1, min(max(wanted, accurate), k // (MIN_TERMS * size)))
    params = {"GS": groups, "BS": size, "tile_y": tile[0], "tile_x": tile[1]}
    why = (f"occupancy model: BS={size} ({'the SIMD width' if cpu else 'GPU group'}), "
           f"GS={groups} ({fill}; each work-item sums {MIN_TERMS} to {MAX_TERMS} terms), "
           f"tile {tile[0]}x{tile[1]} ({tiles} tile{'s' if tiles > 1 else ''} of C)")
    return params, why
