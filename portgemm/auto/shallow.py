"""A shallow K in ``vec``: on a GPU in the shallow-k class, on Intel's CPU runtime with
AVX-512 in any class of ordinary shapes (shallow-k and the size classes).

With a few steps of K a product is the writing of C. ``vec`` keeps a few rows of C's
vectors in registers, reads its steps of A and B straight from memory (the caches serve
the neighbours' re-reads) and writes each row's vectors at once, with no local memory and
no barrier.

On a GPU the shallow-k class's entries on Hopper are tensor-core tiles (wgmma's 128 x 128
in float32, mma's 64 x 128 in float64), which stage a few steps of A and B in local memory
for every tile and store C value by value where its rows are not aligned to pairs. On the
H100, in turns with them, vec in tiles one 16-byte vector wide
(bench/results/2026-11-27-h100-shallow):
- float32, tiles of 4 rows x 4: 1.26-3.26x faster at K = 1-4 (9314 x 1025 x 3: 53% ->
  173% of cuBLAS, 600 x 601 x 1 2.2x); 8 rows x 4 at K = 5-7 1.15-2.11x (2838 x 8932 x 7
  1.54x), level at K = 8 and 0.85-0.92x at K = 10-12, where the tensor cores keep it;
- float64, 4 rows x 2: 2.2-2.65x where C's rows are not 16-byte aligned (1025 or 4097
  columns), 0.97-1.05x where they are; at K = 7-8 0.82-0.87x.
Where C has an odd count of columns, the tensor-core tiles store every value alone
(kernels_cl/store_pairs.h), and vec keeps its lead deeper: against auto's entry, in turns
(bench/results/2026-11-27-h100-short-reads), float64's 4 x 2 ran 1.41-2.46x faster at
K = 7-16 (3565 x 3591 x 8 59% -> 143% of cuBLAS) and 1.10-1.28x at 20-24, level at 28,
0.83-0.91x at 32; float32's 8 x 4 1.54-2.78x at K = 8-16 (3565 x 3591 x 8 41% -> 114%),
1.17-1.80x at 20-28, 1.04-1.37x at 32, 0.97-1.19x at 40, 0.84-1.03x at 48. With an even
count of columns vec ran 0.72-1.05x at K = 8 and 16.
Only the H100 was timed; any GPU takes the rule.

On Intel's CPU runtime (a work-item-vectorising compiler) float64's panel, packed in
tiles of 4 rows by 3 vectors (2 x 32 at K <= 5 under a large C), wrote C in short runs;
vec's 8 rows x 16 (a vector of 16 doubles: two registers) in groups of 2 x 4, B in
place, ran 1.21-2.84x faster at shallow-k C of K = 2-24 in kernel time, in two runs in turns on a
2-core Xeon of model 207 (2048^2 x 8 2.0-2.8x), 1.03-1.47x at K = 32, and 1.06-1.77x at
ten C with a side under 512 or K of 25-33 (8759 x 469 x 29 1.57x, 300 x 4000 x 8 1.54x,
256^2 x 16 level); in the wall time of the whole call 1.0-2.7x. At K = 40-64 it ran
0.91-1.06x, at 128 0.90x, and deeper K belongs to panel (1024^3 2.3x slower)
(bench/results/2026-11-27-cpu-xeon207-shallow-vec). In float32 the tile of the same
bytes, 8 x 32, ran 1.25-2.0x faster at nine shapes of K = 12-48 (A/A control 0.93-1.08x)
and 1.02-2.2x at eight in a confirming run against auto before (3000^2 x 9 2.2x), 0.85x
at 700^2 x 24 (0.49M values, so C needs 512K); K <= 8 keeps panel's shallow tile
(packing.SHALLOW_RUNS), where 8 x 32 ran 0.63-1.0x. Only AVX-512 was timed.

The CPU rule goes by the maker in the CPU's name (its brand string), since the two
makers seen split on float32. On a 2-core AMD EPYC (Zen 5) float32's vec 8 x 32 ran
1.0-1.9x slower than panel's packed tiles at eight shapes of K = 9-48 in the wall time of
the whole call, 8759 x 469 x 29 at 24% of numpy in kernel time
(bench/results/2026-11-27-cpu-zen5-survey); float64's 8 x 16 ran level with panel or
up to 2x faster there, as on the Xeon.
"""

from __future__ import annotations

from ..runtime.device import Device
from .compiler import compiler_kind
from .shapes import SIZE_CLASSES
from .traits import cpu_maker

VECTOR_BYTES = 16
# on a GPU, by itemsize: (K at most, rows of a tile), the last the deepest K that goes
# to vec
GPU_ROWS = {4: ((4, 4), (7, 8)), 8: ((6, 4),)}
GPU_ODD_ROWS = {4: (32, 8), 8: (24, 4)}  # ... and where C's columns are odd, deeper
GPU_GROUP = (2, 64)            # work-items a group down M and along N (vectors of C's rows)
# on Intel's CPU runtime with AVX-512, by itemsize: (K from, K to, C's values at least)
CPU_DEPTHS = {4: (9, 48, 1 << 19), 8: (1, 32, 0)}
CPU_MAKERS = {4: ("Intel",), 8: ("Intel", "AMD")}  # where each was timed faster
CPU_ROW_BYTES = 128            # a tile's row: two AVX-512 registers of sums
CPU_TILE = {"tile_y": 8, "vw": 16, "wg_y": 2, "wg_x": 4}


def gpu_tile(k: int, itemsize: int) -> dict:
    """vec's parameters for a GPU's shallow K of depth k (at most gpu_most_k)."""
    rows = next((rows for most, rows in GPU_ROWS[itemsize] if k <= most),
                GPU_ODD_ROWS[itemsize][1])
    width = VECTOR_BYTES // itemsize
    return {"tile_y": rows, "tile_x": width, "vw": width, "wg_y": GPU_GROUP[0],
            "wg_x": GPU_GROUP[1], "PACKED": 0, "KSPLIT": 1}


def gpu_most_k(itemsize: int, n: int = 0) -> int:
    """The deepest K that goes to vec on a GPU for a C of n columns (0: none, for this
    itemsize)."""
    if itemsize not in GPU_ROWS:
        return 0
    return GPU_ODD_ROWS[itemsize][0] if n % 2 else GPU_ROWS[itemsize][-1][0]


def cpu_tile(itemsize: int) -> dict:
    """vec's parameters for a shallow K on Intel's CPU runtime with AVX-512."""
    return {**CPU_TILE, "tile_x": CPU_ROW_BYTES // itemsize, "PACKED": 0, "KSPLIT": 1}


def shallow_params(device: Device, own: str, m: int, n: int, k: int,
                   itemsize: int) -> tuple[dict, str] | None:
    """(vec's parameters, why) for an m x n x k shape of class ``own`` on ``device``, or
    None where the class's entries stand (another class, K out of the bounds, or no rule
    for the device)."""
    kind = compiler_kind(device)
    most = gpu_most_k(itemsize, n)
    if kind == "gpu" and own == "shallow-k" and k <= most:
        params = gpu_tile(k, itemsize)
        odd = f" (C's {n} columns odd: its pairs of values unaligned)" if n % 2 else ""
        return params, (f"K = {k} <= {most}{odd} on a GPU: vec, tiles of "
                        f"{params['tile_y']} rows x one vector of {params['vw']} (C written "
                        f"{VECTOR_BYTES} bytes at a time), groups of {GPU_GROUP[0]} x "
                        f"{GPU_GROUP[1]}")
    least, most, values = CPU_DEPTHS.get(itemsize, (1, 0, 0))
    maker = cpu_maker(device)
    if (kind == "work-item-vectorising" and device.native_vector_width >= 16
            and maker in CPU_MAKERS.get(itemsize, ())
            and own in ("shallow-k",) + SIZE_CLASSES and least <= k <= most
            and m * n >= values):
        params = cpu_tile(itemsize)
        return params, (f"K = {k} in [{least}, {most}] in {itemsize}-byte values on a "
                        f"{kind} compiler with AVX-512: vec, tiles of {params['tile_y']} "
                        f"rows x {params['tile_x']}, B in place (an {maker} CPU)")
    return None

