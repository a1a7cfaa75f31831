"""The tallskinny kernel's parameters from the device's properties: a bandwidth model.

The kernel is bound by reading A and B once, so the model asks for the fewest work-items
that keep the device's memory busy. On a GPU that is Little's law: the bytes in flight
must cover the bandwidth times the latency of a loaded memory system. On the H200 its
4 TB/s times 1 us fit every sweep (bench/results/2026-11-22-h200-dev): 4 MB, about
IN_FLIGHT_PER_UNIT bytes for each of its 132 SMs. The H100's 132 SMs wanted the same
counts of groups, though its probe reads 1.4x less bandwidth: the bandwidth times 1 us
gave it half the groups, 1.3-2x slower (bench/results/2026-11-27-h100-short-k). So the
model keeps IN_FLIGHT_PER_UNIT bytes in flight a compute unit, whatever the bandwidth.
Each work-item has KU steps of K in flight, and the tiles at the same step share its
bytes (M + N values, read once from memory), so a tile needs compute units x
IN_FLIGHT_PER_UNIT / (KU (M + N) itemsize) work-items: the nearest power of two of
groups; where C has several tiles (tile_for says how it is split), each at least its
share of the compute units (exactly, not a power of two) and at most its share of one
round of groups the device holds at once; where C is one tile, the nearest whole
number of waves (a multiple of the compute units): the groups' runs of K are equal
within a step, and 132 groups ran 0-6% faster than 128 on the H200's 132 SMs
(bench/results/2026-11-22-h200-deep-wgmma), each group
the largest power of two up to 1024 whose share of a compute unit's registers holds a
work-item's values (its tile, its loads and ITEM_REGISTERS more: a bigger group makes
the compiler spill), 256 where the register file is not known. Where C has many tiles
(a tall C of a few columns), no more work-items a tile than its share of one wave of the
device: bigger groups each sum a few steps of K and leave a second wave's tail
(8192 x 8 x 8192 ran 1.35x faster in groups of 64 than of 512).

A GPU work-item holds all of C where it has at most 128 values, loading one step at a
time; a wider C (up to 16 x 16 in the tall-skinny class) goes in tiles of 8 x 8 with two
steps loaded at once: 16 x 16 x 2^25 ran at 88-91% of the copy bandwidth so, 66-67% one
step at a time, as did xgemm split along K (bench/results/2026-11-22-h200-m16). The last
group to finish adds the slices (FUSE=1), and where the compiler takes PTX the groups sum
their tiles by warp shuffles (REDUCE=1; elsewhere its exchanges would go through local
memory, and the tree does fewer): together 1.3-1.5x faster than the tree and a second
launch at K = 2^21 on the H200 (bench/results/2026-11-22-h200-tallskinny).

On a CPU a work-group is one work-item that walks its run of K step by step with each
row of its tile one vector (ROWVEC): one load of B's row and a broadcast of A per row of
the tile. The lanes' form (a group of one SIMD width, a step of K per lane, as on a GPU)
needs B's row of the tile in every lane, a gather per step on Intel's runtime; on the
Zen 5 ROWVEC ran 8 x 8 x 2^22 6.5x faster than it (28 GB/s, both cores' share of the
memory) and a tall C of 1-16 columns 2.6-10.7x (bench/results/2026-11-23-cpu-zen5), and
on PoCL 5 (the GPU machine's 16-core Xeon) 2.2-12.8x. A tile has at most CPU_TILE_ROWS
rows (each row of a row-major A a stream the prefetchers follow: on Intel's runtime the
lanes' form took 4096 x 1 x 4096 in 14.4 ms in tiles of 64 x 1, 3.1 ms in 8 x 1) and
ROW_VECTOR columns (one vector), C's columns shared evenly among the fewest vectors.
A wide C (more columns than rows) takes tiles of several vectors a row, as many as
ROW_ACCUMULATORS vectors of sums allow: a work-item then reads a run of 64 bytes times
the vectors from each row of B, where one vector read 64 bytes of rows 16 KB apart (B at
12-17 GB/s). On the Zen 5 tiles of 1 x 256, 2 x 224, 4 x 112 and 8 x 48 ran 1.6-2.7x
faster than tiles of one vector a row of as many rows, with at most WIDE_RUN steps a
work-item and WIDE_ITEMS_PER_CORE work-items a core (bench/results/2026-11-23-cpu-zen5-
wide-rows). How many rows a tile takes depends on how B is read (wide_reads, by the
operands' layout; bench/results/2026-11-23-cpu-zen5-layout): along B's rows (B
row-major) at most 16, but 9 where a tile of 16 would read each row of B in several runs,
each row then 3 vectors or more (10-16 rows of 4096^2 ran 1.1-1.6x faster in two tiles
than in one of 1-2 vectors a row); along K (B column-major, A
row-major) up to 16, B then read again for each tile of rows (16 rows as two tiles of
8 x 48 ran 1.30x slower); gathered value by value (both column-major) one vector a row
(4 x 112 and 8 x 48 ran 3.5-4.2x slower than one vector). One group a tile, so that the
tile is C's own and no second launch adds the groups, where A and B take at most
ONE_CORE_BYTES, or at most ONE_GROUP_BYTES and C has a tile a core: that launch costs
15-60 us on Intel's runtime. In sweeps of wall time on the Zen 5 one group was the
fastest point or within 1.03x at twelve such shapes, 1.14-1.35x at three (32 x 32 x
65536 the worst), and 1.4-3.5x slower at 128-270 MB of long runs; on PoCL 5's 16 cores
the fastest within 1 MB, 1.26x slower at 2 MB (bench/results/2026-11-23-cpu-zen5-one-
group). But where several tiles read the same parts of A and B (C has several tiles
across, or down) and those parts exceed half a core's L2 (CACHE_SHARE), K is cut into as
many ranges as bring a range's parts within it (cache_ranges), at least: on the Xeon of
model 167 (2 MB L2) one group a tile ran twelve shapes of 16 x 128 to 256^2 at K =
5000-100000 on Intel's runtime 1.7-5.6x slower than the fastest of GS = 1-128 in two
sweeps, and that count of ranges came within 1.05x of it at 8 and 9 of the 12 (the
worst 1.9x and 1.6x, at shapes that came within 1.03x in the other sweep and in a third);
128^2 x 16384 on PoCL 3 2.0x slower (bench/results/2026-11-24-cpu-xeon-scan). Otherwise
ROW_ITEMS_PER_CORE work-items a core over all the tiles, summed by the tree and a second
launch (the Intel runtime ran 3 x 3 x 2^23 2.3x slower with the ticket counter). On the
Zen 5 every count from 2 to 8192 groups ran 3 x 3 x 2^23 and 8 x 8 x 2^22 within 1.2x of
the fastest, which point topped that plateau changing from run to run, and 64 a core
came within 1.02-1.05x of the fastest point timed again beside it; on PoCL 5's 16 cores
within 1.06x; a single group ran 1.9x slower, 12-14x there
(bench/results/2026-11-23-cpu-zen5-groups). The kernel sums each chunk of ROW_CHUNK
steps on its own before adding it to the run's total, so a work-item's run may be long:
a single group summed 8 x 8 x 2^22 to 1.3e-6 (3.5e-5 in one sequence). A work-item keeps
ROW_CHAINS sums in flight: its tile's rows times their vectors times KU, the sums of every
KU-th step (each an independent chain of additions, which one would leave waiting on the
last one's latency). On the Zen 5 that count came within 1.11x of the fastest of KU = 1,
2, 4, 8 at 25 shapes of tiles 1 x 2 to 8 x 16, where KU = 2 for rows of two and 1
elsewhere ran up to 2.0x slower (1 x 3: 2.0x, 1 x 5: 1.7x, 1 x 2: 1.5x, 2 x 3: 1.5x;
bench/results/2026-11-27-cpu-zen5-row-sums). On Intel's runtime, where both operands are
row-major and the tile is all of C's 2-15 columns, B's rows lie as whole vectors of 16
values a few rows at a time (FLAT: 8 rows of 2 columns, 16 of 3 as 3 vectors): a block of
steps is then a vector of A's steps of each row spread over the lanes by a shuffle
times B's vectors, every lane at work where a row vector of 2 used 2 of 16; FLAT_CHAINS
sums in flight suffice. On the Zen 5 it ran 0.99-1.75x as fast as the rows' form at 22
shapes (1 x 2 x 2^22 1.46x, 4 x 4 x 2^20 1.75x, 8 x 2 x 2^21 1.55x, 4096 x 2 x 4096
1.23x), and 0.68-0.99x where A is column-major with several rows (value-by-value loads
of A's steps), which keeps the rows' form (bench/results/2026-11-27-cpu-zen5-flat-rows);
on PoCL 5 only tiles of 2 rows or more and fewer than 8 columns ran it faster.
A tile of one column whose B lies along K is read 16 steps a vector along K instead (the
kernel decides): 1 x 1 x 2^24 2.9x faster, a matrix times a vector 1.1-1.4x, both at
numpy's speed on the Zen 5.

Two bounds on the work of one work-item, which adds its products in sequence: at most
MAX_TERMS (float32 error grows with the length of a sequential sum: K = 3.4e7 in one
work-item's hands gave 1e-4, 4096 terms keep it near 1e-6) and at least MIN_TERMS (the
group's sum at the end must pay off). On a GPU where that leaves compute units without
a group (a tile's share of them), the bound goes down to GPU_MIN_TERMS, and where even
that does not let groups of the registers' size reach half the compute units, the
groups are smaller, down to SPREAD_GROUP: each compute unit keeps only so many loads in
flight. On the H100 the bound of 16 ran 1 x 64 x 65536 in 16 groups of 256 (44 us, 0.9x
cuBLAS); spread over 132 groups of 128 in 4 steps, 16 us. At eighteen float32 shapes of
K = 16384 to 2^20 the two together ran 0.99-2.8x as fast as the bound of 16 alone
(float64 1.0-2.0x), and level at K = 2^21 and 2^25; groups of 32 ran 8 x 8 x 65536 1.7x
slower than of 128 (bench/results/2026-11-27-h100-spread)."""

from __future__ import annotations

from math import ceil, log2

from ..families.base import MAX_PRIVATE_VALUES
from ..families.tallskinny import (FLAT_COLUMNS, MAX_ROW_VECTORS, ROW_VECTOR, flat_block,
                                   flat_values, row_vectors, row_width)
from ..runtime.device import Device
from .compiler import compiler_kind
from .gpu_tiles import MULTI_TILE, tile_for
from .shapes import SKINNY_LONG
from .traits import Traits, traits

MAX_TERMS = 4096
MIN_TERMS = 16
GPU_MIN_TERMS = 4
IN_FLIGHT_PER_UNIT = 30_000  # bytes a GPU compute unit keeps in flight (4 MB on 132 SMs)
# values of C a GPU work-item holds as one tile (and any device's but a CPU's), in float32
# and in float64, whose values take two registers each: in one tile of 108-128 values,
# float64 C ran 1.03-2.65x slower on the H100 than in tiles of at most 64 (MULTI_TILE;
# 2 x 54 to 1 x 128, nine shapes, K = 1.2e6-7.5e6: 1 x 128 33% -> 88% of cuBLAS, 11 x 11
# 62% -> 116%), but C of 65-90 values ran 1.02-1.6x faster in one tile (3 x 30, 4 x 20,
# 1 x 65, 1 x 90, 9 x 9, 7 x 11) and C of 100 0.87-1.1x
# (bench/results/2026-11-27-h100-shallow)
ACCUMULATORS = 128
DOUBLE_ACCUMULATORS = 96
GPU_GROUP = 256       # where the register file is unknown
GPU_GROUP_LIMIT = 1024
SPREAD_GROUP = 128    # the smallest group a short K's work-items are spread in
ITEM_REGISTERS = 24   # a work-item's indices, addresses and loop state beside its values
ROW_ITEMS_PER_CORE = 64  # ROWVEC: work-items a core, over all the tiles of C
ONE_GROUP_BYTES = 64 << 20  # ROWVEC: A and B up to which a tile a core is one group
ONE_CORE_BYTES = 1 << 20    # ... and up to which one group takes any tile
ROW_CHAINS = 8        # ROWVEC: sums a work-item keeps in flight (tile rows x vectors x KU)
ROW_MOST_STEPS = 8    # ROWVEC: KU at most
FLAT_CHAINS = 2       # FLAT: sums in flight (tile rows x vectors x KU): its vectors are full
# FLAT on a code-vectorising compiler (PoCL) only for tiles of at least this many rows and
# fewer columns than FLAT_POCL_COLUMNS: PoCL 5 ran it 1.13-1.59x the rows' speed at eleven
# such tiles of 2-8 rows and 2-5 columns, 0.51-2.25x for one row, 0.85-1.04x for 8 columns
# (bench/results/2026-11-27-cpu-zen5-flat-rows/pocl5)
FLAT_POCL_ROWS = 2
FLAT_POCL_COLUMNS = 8
CPU_TILE_ROWS = 8     # rows of a row-major A a CPU work-item streams at once, where C is cut
WIDE_TILE_ROWS = 16    # ROWVEC, C wider than tall: rows a tile (B read once per tile of rows)
ROW_ACCUMULATORS = 28  # ROWVEC, C wider than tall: vectors of sums a work-item holds
ROW_RUN_ROWS = ROW_ACCUMULATORS // 3  # ... along B's rows: each row 3 vectors or more
# why, by how ROWVEC reads a wide C's B (wide_reads)
WIDE_READS = {"rows": f"B read along its rows: tiles of at most {WIDE_TILE_ROWS} rows, "
                      f"{ROW_RUN_ROWS} where B's rows take several runs, so that each row "
                      f"reads 3 vectors or more of B's",
              "along K": f"B read along K in blocks of sums: up to {WIDE_TILE_ROWS} rows a "
                         f"tile",
              "gathered": f"A and B column-major, B's rows gathered value by value: one "
                          f"vector a row, up to {WIDE_TILE_ROWS} rows a tile"}
WIDE_ITEMS_PER_CORE = 16  # ROWVEC, rows of several vectors: work-items a core at least ...
WIDE_RUN = 512            # ... and steps of K a work-item walks at most
BAND_BYTES = 1 << 20  # ROWVEC: B's rows the groups running side by side share
CACHE_SHARE = 2       # ROWVEC: a range of K's re-read slices fill at most 1/2 of the cache
DEFAULT_CACHE = 1 << 20  # ... where the driver does not report the cache
WORKSPACE_SHARE = 32  # ROWVEC: partial tiles at most 1/32 of B's bytes (GS <= K / 32 M)


MULTI_TILE_STEPS = 2  # steps of K a work-item loads at once there (the kernel's KU)
# C in one tile loads two steps at once where their loads leave the group size as it is,
# at least ONE_TILE_STEPS_GROUP: on the H100 at K = 2^21, 6 x 6 ran 2.1x faster so,
# 7 x 7 and 8 x 8 2-3%, 3 x 3 alike; 10 x 10 (groups of 256) 1.44x slower, and 5 x 5 and
# 9 x 9, whose groups two steps would halve, alike (bench/results/2026-11-28-tall-forms)
ONE_TILE_STEPS_GROUP = 512
# A C of more than compute units / MANY_TILES tiles takes groups enough for
# MANY_TILE_ROUNDS rounds of those the device holds at once, where the rules above gave
# it one or two a tile. On the H100, float32 C of 1-16 columns and 300-20000 rows (40-400
# tiles) at K = 4096-2^20, in turns with the rule off: 1.03-2.9x faster at eleven shapes
# (3000 x 3 x 20000 55% -> 161% of cuBLAS, 1753 x 2 x 32722 67% -> 100%, 2000 x 3 x 2^20
# 2.56x), level at seven, 0.88-0.96x at five where the model's groups already read at
# 2.3 TB/s (500 x 8 x 65536, 1000 x 3 x 65536, 4000 x 6 x 4096); 2 rounds gained less;
# float64 1.02-1.16x (bench/results/2026-11-27-h100-shallow). C of fewer tiles keeps its
# share of the compute units (1000 x 1 0.98x, 600 x 3 0.93x), and a tall C of TALL_FROM
# columns its groups (timed on the H200)
MANY_TILES, MANY_TILE_ROUNDS = 3, 4
# A tall C of TALL_FROM to 24 columns on a GPU: tiles of TALL_ROWS rows and all the
# columns, groups of TALL_GROUP, as many steps loaded at once (up to TALL_STEPS) as keep
# a work-item's tile and loads within TALL_VALUES registers. From grids of tile rows x
# group x steps x groups a tile on the H200: 4096-16384 x 12-24 x 4096-8192 ran fastest
# so, 1.2-2.0x cuBLAS, where xgemm had run them 1.6-2.1x slower; at 32 columns
# tallskinny lost to xgemm 1.5x. At 8 columns groups of 64 ran 1.4x faster than the 512
# the model above gives, but only with 2 steps at once (4 ran 1.2-1.8x slower):
# not taken (bench/results/2026-11-22-h200-tall). Groups no bigger than a tile's share
# of one wave (wave_share) then took 8 columns to groups of 64-128: 1.35-3.05x faster
# (bench/results/2026-11-23-h200-tall-groups). In float64 the tiles have TALL_ROWS / 2
# rows, a double taking two registers: 4096 x 16 x 4096 ran 2.2x faster in 4 x 16 than
# in 8 x 16 on the H100 (bench/results/2026-11-26-h100-float64-shapes).
TALL_FROM, TALL_ROWS, TALL_GROUP, TALL_STEPS, TALL_VALUES = 9, 8, 64, 4, 256


def wide_reads(layout: str) -> str:
    """How ROWVEC reads a wide C's B in this layout (A's order and B's): along B's rows
    (B row-major), along K (B column-major, A row-major: the kernel's blocks of sums), or
    gathered value by value (both column-major)."""
    if layout[1] == "C":
        return "rows"
    return "along K" if layout[0] == "C" else "gathered"


def row_tile(m: int, n: int, layout: str = "CC") -> tuple[int, int]:
    """ROWVEC's tile: at most CPU_TILE_ROWS rows, each one vector of at most ROW_VECTOR
    columns, C's columns shared evenly among the fewest such tiles. Where C is wider than
    tall, C's rows shared evenly among the fewest tiles of at most WIDE_TILE_ROWS (B, the
    large operand, read once per tile of rows), each row as many vectors of ROW_VECTOR as
    ROW_ACCUMULATORS allow (up to MAX_ROW_VECTORS; one where B's values are gathered,
    :func:`wide_reads`), C's vectors shared evenly among the fewest tiles; where B is
    read along its rows and such a tile holds only part of them, at most ROW_RUN_ROWS
    rows, for longer runs of each row of B."""
    if n <= m:
        return min(m, CPU_TILE_ROWS), ceil(n / ceil(n / ROW_VECTOR))
    reads = wide_reads(layout)
    tile = _wide_tile(m, n, WIDE_TILE_ROWS, 1 if reads == "gathered" else MAX_ROW_VECTORS)
    if reads == "rows" and tile[1] < n:
        tile = _wide_tile(m, n, ROW_RUN_ROWS, MAX_ROW_VECTORS)
    return tile


def _wide_tile(m: int, n: int, most_rows: int, most_vectors: int) -> tuple[int, int]:
    rows = ceil(m / ceil(m / most_rows))
    most = min(most_vectors, max(1, ROW_ACCUMULATORS // rows))
    if n <= ROW_VECTOR * most:
        return rows, n
    # whole vectors a tile, so that every tile's loads start on the same alignment
    vectors = ceil(n / ROW_VECTOR)
    return rows, ROW_VECTOR * ceil(vectors / ceil(vectors / most))


def row_groups(known: Traits, m: int, n: int, k: int, tile: tuple[int, int],
               itemsize: int = 4) -> tuple[int, str]:
    """ROWVEC's groups a tile, and why; none with fewer than MIN_TERMS steps.

    One, so that each tile is C's own and no second launch adds the groups, where A and
    B take at most ONE_CORE_BYTES, or at most ONE_GROUP_BYTES and C has a tile a core.
    Otherwise:
    A tile of one vector a row: ROW_ITEMS_PER_CORE work-items a core over the tiles, and
    where B is large enough that the groups running side by side share a band of B's rows
    of about BAND_BYTES, no more than leave the partial tiles a WORKSPACE_SHARE of B's
    bytes. A tile of several vectors a row: WIDE_ITEMS_PER_CORE work-items a core, each
    a run of at most WIDE_RUN steps."""
    tiles = ceil(m / tile[0]) * ceil(n / tile[1])
    read = (m + n) * k * itemsize
    ranges, cached = cache_ranges(known, m, n, k, tile, itemsize)
    tile_a_core = tiles >= known.compute_units and read <= ONE_GROUP_BYTES
    if read <= ONE_CORE_BYTES or (tile_a_core and ranges == 1):
        return 1, ("one group a tile, no second launch: A and B within "
                   + (f"{ONE_CORE_BYTES >> 20} MB" if read <= ONE_CORE_BYTES else
                      f"{ONE_GROUP_BYTES >> 20} MB and {tiles} tiles for "
                      f"{known.compute_units} cores" + cached))
    if tile_a_core:
        return (max(1, min(ranges, k // MIN_TERMS)),
                f"{tiles} tiles for {known.compute_units} cores{cached}; each work-item "
                f"sums at least {MIN_TERMS} terms")
    if tile[1] > ROW_VECTOR:
        wanted = ceil(known.compute_units * WIDE_ITEMS_PER_CORE / tiles)
        runs = ceil(k / WIDE_RUN)
        groups = max(1, min(max(wanted, runs, ranges), k // MIN_TERMS))
        why = (f"{WIDE_ITEMS_PER_CORE} work-items a core over {tiles} "
               f"tile{'s' if tiles > 1 else ''}, runs of at most {WIDE_RUN} steps")
    else:
        wanted = ceil(known.compute_units * ROW_ITEMS_PER_CORE / tiles)
        band = min(ceil(k * n * itemsize / BAND_BYTES), k // (WORKSPACE_SHARE * m))
        groups = max(1, min(max(wanted, band, ranges), k // MIN_TERMS))
        why = (f"{ROW_ITEMS_PER_CORE} work-items a core over {tiles} "
               f"tile{'s' if tiles > 1 else ''}"
               + (f", bands of B of {BAND_BYTES >> 20} MB" if groups == band > 1 else ""))
    return groups, why + (cached if groups == ranges > 1 else "") + (
        f"; each work-item sums at least {MIN_TERMS} terms")


def cache_ranges(known: Traits, m: int, n: int, k: int, tile: tuple[int, int],
                 itemsize: int = 4) -> tuple[int, str]:
    """(ranges, why): the fewest ranges of K, a power of two, in which the slices of A
    and B that several tiles read (A's where C has several tiles across, B's where it
    has several down) fill at most 1/CACHE_SHARE of the cache a core reads through (its
    L2: :func:`~portgemm.auto.traits.host_l2`, else the driver's report). The groups
    of one range are numbered consecutively and so run on one core in turn: every tile
    after the first reads the range's slices from that cache."""
    shared = (m * (n > tile[1]) + n * (m > tile[0])) * k * itemsize
    cache = known.cache or DEFAULT_CACHE
    ranges = 1 << max(0, ceil(log2(max(1.0, shared * CACHE_SHARE / cache))))
    where = (f"within 1/{CACHE_SHARE} of the {cache >> 10} KB cache"
             f"{'' if known.cache else ' (assumed)'}")
    why = (f"; K in {ranges} ranges, the slices of A and B several tiles read "
           f"{shared / ranges / 2**10:.0f} KB a range, {where}" if ranges > 1 else
           f"; the parts of A and B several tiles read, {shared / 2**10:.0f} KB, {where}")
    return ranges, why if shared else ""


def one_tile_steps(known, tile: tuple[int, int], itemsize: int) -> int:
    """KU for C in one tile: 2 where a work-item's registers with two steps' loads leave
    the device as it is with one (the same group size, ONE_TILE_STEPS_GROUP or more, and
    as many groups a compute unit); else 1."""
    if not known.registers:
        return 1

    def occupancy(steps):
        size = gpu_group(known.registers, tile, known.max_group, steps, itemsize)
        return size, known.items_per_unit(item_registers(tile, steps, itemsize)) // size

    one, two = occupancy(1), occupancy(2)
    return 2 if one == two and two[0] >= ONE_TILE_STEPS_GROUP else 1


def item_registers(tile: tuple[int, int], steps: int, itemsize: int = 4) -> int:
    """32-bit registers a GPU work-item needs: its tile and ``steps`` steps' loads (a
    double takes two) and ITEM_REGISTERS. Counting a double as one gave float64 groups
    of 512 that spilled: 8 x 8 x 2^22 ran 2.3x faster in groups of 256, 16 x 16 x 2^22
    3.6x (bench/results/2026-11-26-h100-float64-shapes)."""
    words = max(1, itemsize // 4)
    return words * (tile[0] * tile[1] + steps * (tile[0] + tile[1])) + ITEM_REGISTERS


def gpu_group(registers: int, tile: tuple[int, int], max_group: int, steps: int = 1,
              itemsize: int = 4) -> int:
    """The largest power-of-two group whose every work-item keeps its tile, ``steps``
    steps' loads and ITEM_REGISTERS in its share of ``registers`` (GPU_GROUP where
    unknown)."""
    if not registers:
        return min(GPU_GROUP, max_group)
    need = item_registers(tile, steps, itemsize)
    size = 1 << (min(GPU_GROUP_LIMIT, max_group).bit_length() - 1)
    while size > 32 and registers // size < need:
        size //= 2
    return size


def wave_share(known: Traits, tile: tuple[int, int], steps: int, tiles: int,
               itemsize: int = 4) -> float:
    """A tile's share of the work-items the device holds at once (its registers allowing
    each a tile and ``steps`` steps' loads): the most a tile may have for all of C's
    tiles to run in one wave (infinite where the register file is unknown or C is one
    tile)."""
    if tiles == 1 or not known.registers:
        return float("inf")
    need = item_registers(tile, steps, itemsize)
    return known.compute_units * known.items_per_unit(need) / tiles


def tallskinny_params(device: Device, m: int, n: int, k: int, itemsize: int = 4,
                      layout: str = "CC") -> tuple[dict, str]:
    """(parameters, why) for the tallskinny kernel on this device and shape; on a CPU
    ``layout`` (A's order and B's) shapes a wide C's tiles."""
    known = traits(device)
    if device.type == "cpu":
        return cpu_row_params(known, m, n, k, itemsize, layout, compiler_kind(device))
    one_tile = DOUBLE_ACCUMULATORS if itemsize == 8 else ACCUMULATORS
    several = m * n > one_tile
    tall = m >= SKINNY_LONG and TALL_FROM <= n and n * TALL_ROWS <= TALL_VALUES
    if tall:
        tile = (TALL_ROWS * 4 // max(4, itemsize), n)  # a double takes two registers
        steps = max(s for s in (TALL_STEPS, 2, 1)
                    if s == 1 or item_registers(tile, s, itemsize) - ITEM_REGISTERS
                    <= TALL_VALUES)
    else:
        per_item = MULTI_TILE if several else one_tile
        tile = tile_for(m, n, per_item)
        if m >= SKINNY_LONG and tile[1] < n <= per_item:
            # a tall C (the skinny class): tiles of all its columns read A once, where
            # 16 x 4 tiles read it three times (4096 x 12 x 4096 on the H200: 65 us, 43
            # in 4 x 12)
            tile = (min(m, per_item // n), n)
        steps = MULTI_TILE_STEPS if several else one_tile_steps(known, tile, itemsize)
    tiles = ceil(m / tile[0]) * ceil(n / tile[1])
    size = (min(TALL_GROUP, known.max_group) if tall else
            gpu_group(known.registers, tile, known.max_group, steps, itemsize))
    # a tile's work-items in flight, `steps` steps of K each; the tiles at the same step
    # share its bytes (M + N values)
    in_flight = known.compute_units * IN_FLIGHT_PER_UNIT
    # (a C of one tile counts one step: its second was measured at one step's groups)
    counted = steps if several or tall else 1
    items = in_flight / (counted * (m + n) * itemsize)
    fill = (f"{items:.0f} work-items a tile keep {in_flight / 2**20:.1f} MB in flight "
            f"({IN_FLIGHT_PER_UNIT / 1000:g} KB a compute unit)")
    # many tiles: no more work-items than one wave holds (bigger groups would each sum a
    # few steps of K, and pay their sum and a second wave's tail)
    one_wave = wave_share(known, tile, steps, tiles, itemsize)
    if one_wave < max(items, size):
        fits = 1 << max(0, int(one_wave).bit_length() - 1)  # under 1: C overfills a wave
        size = max(min(TALL_GROUP, size), min(size, fits))
        items = min(items, one_wave)
        fill += f", at most one wave's {one_wave:.0f} a tile"
    # a K too short for groups of this size, GPU_MIN_TERMS steps a work-item, to reach
    # half the compute units: smaller groups, more of them
    registers_group = size
    while (size > SPREAD_GROUP
           and tiles * (k // (GPU_MIN_TERMS * size)) < known.compute_units // 2):
        size //= 2
    if size < registers_group:
        fill += f", groups of {size} to reach the compute units at a short K"
    wanted = 1 << max(0, round(log2(max(1.0, items / size))))
    # C's tiles take about a group a compute unit between them at least: on the H100,
    # one tile in 64 groups (half the SMs idle) ran 1.03-1.6x slower than in 132
    # (bench/results/2026-11-27-h100-short-k). Several tiles take exactly their share of
    # the compute units, no power of two, and no more groups than one round of all the
    # tiles' groups holds: 6 tiles in 22 groups each ran 1.15-1.33x faster than in 16 or
    # 32 (two rounds), 5 in 26 and 3 in 44 0.93-1.35x as fast as in 16 or 32
    # (bench/results/2026-11-27-h100-tile-splits)
    share = known.compute_units // tiles
    # groups a compute unit holds at once, its registers allowing
    held = max(1, known.items_per_unit(item_registers(tile, steps, itemsize)) // size)
    if tiles == 1:
        wanted = max(wanted, 1 << (share.bit_length() - 1))
    elif share:
        wanted = min(max(wanted, share), known.compute_units * held // tiles)
    if not tall and tiles * MANY_TILES > known.compute_units:
        # C of many tiles: enough groups between them for MANY_TILE_ROUNDS rounds of the
        # groups the device holds at once
        wanted = max(wanted, ceil(MANY_TILE_ROUNDS * known.compute_units * held / tiles))
    accurate = ceil(k / (MAX_TERMS * size))
    # at least MIN_TERMS steps a work-item, down to GPU_MIN_TERMS where that would leave
    # compute units without a group (one tile: a group each; several: their share)
    floor = known.compute_units if tiles == 1 else share
    steady = k // (MIN_TERMS * size)
    most = max(steady, min(floor, k // (GPU_MIN_TERMS * size)))
    groups = max(1, min(max(wanted, accurate), most))
    least = MIN_TERMS if most == steady else GPU_MIN_TERMS
    terms = f"each work-item sums {least} to {MAX_TERMS} terms"
    if tiles == 1 and groups >= known.compute_units // 2:
        # the nearest whole number of waves, at least one and enough for MAX_TERMS, even
        # past the bound of MIN_TERMS: at K = 2^21 it gave 128 groups of 1024, 4 of 132
        # SMs idle, and 264 ran 1.03-1.10x slower than 132
        waves = max(1, round(groups / known.compute_units))
        # and no more than the device holds at once: a second round of groups only adds
        # its tail (8 x 12 x 2^20 in 264 groups of 256, one a unit, ran 1.14x slower
        # than in 132)
        waves = max(min(waves, held), ceil(accurate / known.compute_units))
        groups = waves * known.compute_units
        terms += f", then whole waves of {known.compute_units} groups"
    params = {"GS": groups, "BS": size, "tile_y": tile[0], "tile_x": tile[1],
              "REDUCE": int(device.takes_ptx), "FUSE": 1, "KU": steps}
    group = ("a tall C's groups (TALL_GROUP)" if tall else
             f"{item_registers(tile, steps, itemsize)} registers a work-item"
             if known.registers else "GPU group")
    why = (f"bandwidth model: BS={size} ({group}), "
           f"GS={groups} ({fill}; {terms}), "
           f"tile {tile[0]}x{tile[1]} ({tiles} tile{'s' if tiles > 1 else ''} of C)"
           + (f", {steps} steps of K loaded at once" if steps > 1 else ""))
    return params, why


def cpu_row_params(known: Traits, m: int, n: int, k: int, itemsize: int = 4,
                   layout: str = "CC", compiler: str = "work-item-vectorising"
                   ) -> tuple[dict, str]:
    """ROWVEC, a CPU's form: groups of one work-item, each row of its tile a vector (or
    several), or B's rows in blocks of whole vectors (FLAT) where they fit and the
    ``compiler`` (auto.compiler's kind) ran that faster."""
    tile = row_tile(m, n, layout)
    groups, fill = row_groups(known, m, n, k, tile, itemsize)
    width = row_width(tile[1])
    vectors = row_vectors(tile[1])
    suits = compiler != "code-vectorising" or (tile[0] >= FLAT_POCL_ROWS
                                               and tile[1] < FLAT_POCL_COLUMNS)
    flat = flat_steps(tile, n, layout) if suits else None
    steps = row_steps(tile) if flat is None else flat
    params = {"GS": groups, "BS": 1, "tile_y": tile[0], "tile_x": tile[1], "REDUCE": 0,
              "FUSE": 0, "KU": steps, "ROWVEC": 1, "FLAT": int(flat is not None)}
    if flat is None:
        row = f"each row of its tile {vectors} vectors of {width}" if vectors > 1 else \
            f"each row of its tile a vector of {width}"
    else:
        block, lanes = flat_block(tile[1])
        row = (f"FLAT=1: B's rows {block} at a time as {lanes} vector"
               f"{'s' * (lanes > 1)} of {ROW_VECTOR}, C's columns fixed lanes")
    why = (f"bandwidth model: ROWVEC=1 BS=1 (a work-item walks its run of K, {row}), "
           f"GS={groups} ({fill}), tile {tile[0]}x{tile[1]}"
           + (f" ({WIDE_READS[wide_reads(layout)]})" if n > m else "")
           + (f", {steps} sums of steps {steps} apart "
              f"({FLAT_CHAINS if flat else ROW_CHAINS} in flight)" if steps > 1 else ""))
    return params, why


def flat_steps(tile: tuple[int, int], n: int, layout: str) -> int | None:
    """FLAT's KU, where a row-major B's rows are the tile's columns (C's all, 2-15 of
    them), A is row-major (each row's steps a vector load; a column-major A of several
    rows ran 0.68-0.99x as fast as the rows' form) and the form's values fit the
    registers at that KU; else None. KU: the fewest steps (a power of two) for
    FLAT_CHAINS sums in flight."""
    if layout != "CC" or tile[1] != n or n not in FLAT_COLUMNS:
        return None
    steps = steps_in_flight(tile[0] * flat_block(n)[1], FLAT_CHAINS)
    return steps if flat_values(tile[0], n, steps) <= MAX_PRIVATE_VALUES else None


def row_steps(tile: tuple[int, int]) -> int:
    """ROWVEC's KU: the fewest steps (at most ROW_MOST_STEPS) for which a work-item keeps
    ROW_CHAINS sums in flight, one a row's vector a step."""
    return steps_in_flight(tile[0] * row_vectors(tile[1]), ROW_CHAINS, ROW_MOST_STEPS)


def steps_in_flight(sums: int, wanted: int, most: int | None = None) -> int:
    """KU: the fewest steps, a power of two (at most ``most``), for which ``sums`` sums a
    step keep ``wanted`` in flight."""
    steps = 1
    while sums * steps < wanted and (most is None or steps < most):
        steps *= 2
    return steps
