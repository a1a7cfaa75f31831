"""Shape classes: how ``variant="auto"`` and the tuning database group GEMM shapes.

A class says what kind of kernel a shape wants, then how large it is:

* ``tall-skinny``: C is tiny (M * N <= 256) and K long (K >= 64 (M + N)): an inner
  product of a few rows; bound by reading A and B once (the tallskinny kernel);
  :func:`device_class` adds a deep-K C of up to 576 values, or of up to 8 rows (float64:
  1) in tallskinny's even tiles, on a GPU, and of sides up to 256 on Intel's CPU runtime
  (and a deep-K float32 C of 1-3 rows and 256-511 columns in uneven tiles skinny); and
  on a GPU a C of up to 4096 values over a K of 1024 or more whose tiles read little;
* ``skinny``: C has at most 32 rows or 24 columns (:func:`device_class`: fewer on a
  CPU, none on PoCL) and at least 512 of the other (32 on Intel's CPU runtime): a row
  vector or a few rows times a matrix, a matrix times a few columns; bound by reading
  the large operand once, which a GEMM tile kernel does not do (its tile's rows go to
  waste); a wide C (few rows) goes to the wide kernel, a tall one (few columns) to
  tallskinny in tiles (bench/results/2026-11-22-skinny);
* ``deep-k``: C holds fewer than 256 tiles of 128 x 128 and K >= 4096: too few tiles to
  fill a large device, so K is split across work-groups (xgemm's KSPLIT);
* ``shallow-k``: K <= 128 and both sides of C at least 512: bound by writing C more
  than by multiplying, where a kernel tuned for large squares may store C slowly (on
  the H200 xgemm's 128 x 128 tile ran such shapes 1.2-2.3x faster than the large
  class's wgmma, bench/results/2026-11-23-h200-shallow-k, until wgmma stored C in
  pairs: now its tile is the entry, bench/results/2026-11-26-hopper-narrow-tiles);
* otherwise by the largest of M, N, K: ``small`` below 512, ``large`` from 2048,
  ``medium`` between.

:func:`class_order` lists the classes whose entries may serve a shape, nearest first: a
tall-skinny or skinny shape only its own (no other kernel is fit for it), a deep-K or
shallow-K shape its own and then the size classes (their tile shapes, with the split
chosen by the model), an ordinary shape the size classes by distance of log(max dim)
from each class's range.
"""

from __future__ import annotations

import math

from ..runtime.device import Device
from .compiler import compiler_kind
from .gpu_tiles import splits_evenly, tile_reads

SIZE_CLASSES = ("small", "medium", "large")
SHAPE_CLASSES = SIZE_CLASSES + ("deep-k", "shallow-k", "tall-skinny", "skinny")
OWN_KERNEL_CLASSES = ("tall-skinny", "skinny")  # served by their own kernels alone
SMALL_BELOW, LARGE_FROM = 512, 2048
TALL_SKINNY_OUTPUT = 256   # M * N at most
TALL_SKINNY_DEPTH = 64     # K at least this times (M + N)
SKINNY_ROWS = 32           # C's rows at most this (wide C), or its columns ...
SKINNY_COLUMNS = 24        # ... at most this (tall C), the limits on a GPU ...
SKINNY_LONG = 512          # ... and its long side at least this
GPU_SKINNY = (SKINNY_ROWS, SKINNY_COLUMNS, SKINNY_LONG)
DEEP_K_TILES = 256         # fewer 128 x 128 tiles of C than this ...
DEEP_K_FROM = 4096         # ... and K at least this
SHALLOW_K_MOST = 128       # K at most this ...
SHALLOW_K_SIDE = 512       # ... and both sides of C at least this


def size_class(m: int, n: int, k: int) -> str:
    """small (max dim < 512), medium, or large (max dim >= 2048)."""
    biggest = max(m, n, k)
    return "small" if biggest < SMALL_BELOW else "large" if biggest >= LARGE_FROM else "medium"


def shape_class(m: int, n: int, k: int) -> str:
    return classify(m, n, k)[0]


def classify(m: int, n: int, k: int,
             skinny: tuple[int, int, int] = GPU_SKINNY) -> tuple[str, str]:
    """(class, why) of a shape; ``skinny`` the most rows and columns of a skinny C and
    the least of its long side."""
    rows, columns, longest = skinny
    if m * n <= TALL_SKINNY_OUTPUT and k >= TALL_SKINNY_DEPTH * (m + n):
        return "tall-skinny", (f"M*N = {m * n} <= {TALL_SKINNY_OUTPUT} and K = {k} >= "
                               f"{TALL_SKINNY_DEPTH}(M+N) = {TALL_SKINNY_DEPTH * (m + n)}")
    if (m <= rows if m <= n else n <= columns) and max(m, n) >= longest:
        short, long_, most = ("row", "column", rows) if m <= n else ("column", "row", columns)
        return "skinny", (f"C has {min(m, n)} {short}{'s' * (min(m, n) > 1)} (<= "
                          f"{most}) and {max(m, n)} {long_}s (>= {longest})")
    tiles = m * n / 128 ** 2
    if tiles < DEEP_K_TILES and k >= DEEP_K_FROM:
        return "deep-k", (f"C is {tiles:g} tiles of 128x128 (< {DEEP_K_TILES}) and K = {k} "
                          f">= {DEEP_K_FROM}")
    if k <= SHALLOW_K_MOST and min(m, n) >= SHALLOW_K_SIDE:
        return "shallow-k", (f"K = {k} <= {SHALLOW_K_MOST} and C is {m}x{n} (both sides "
                             f">= {SHALLOW_K_SIDE})")
    own = size_class(m, n, k)
    return own, f"max(M, N, K) = {max(m, n, k)}: {_size_rule(own)}"


def _size_rule(name: str) -> str:
    return {"small": f"< {SMALL_BELOW}", "medium": f"in [{SMALL_BELOW}, {LARGE_FROM})",
            "large": f">= {LARGE_FROM}"}[name]


def class_order(m: int, n: int, k: int, own: str | None = None) -> list[str]:
    """Classes whose entries may serve this shape, nearest first; ``own`` its class where
    the caller classed it (a device's limits), else :func:`shape_class`'s."""
    own = own or shape_class(m, n, k)
    if own in OWN_KERNEL_CLASSES:
        return [own]
    return ([own] if own in ("deep-k", "shallow-k") else []) + size_order(m, n, k)


def size_order(m: int, n: int, k: int) -> list[str]:
    """The size classes, nearest to this shape's largest dimension first."""
    biggest = math.log(max(m, n, k))
    bounds = {"small": (0.0, math.log(SMALL_BELOW)),
              "medium": (math.log(SMALL_BELOW), math.log(LARGE_FROM)),
              "large": (math.log(LARGE_FROM), math.inf)}
    nearest = size_class(m, n, k)

    def distance(name):
        low, high = bounds[name]
        return 0.0 if name == nearest else min(abs(biggest - low), abs(biggest - high))
    return sorted(SIZE_CLASSES, key=lambda name: (distance(name), name != nearest))


# The most rows and columns of a skinny C by the kind of compiler, where not a GPU's
# (SKINNY_ROWS, SKINNY_COLUMNS: on the H200 tallskinny beat xgemm to 24 columns, not at
# 32, bench/results/2026-11-22-h200-tall): on Intel's CPU runtime panel ran a wide C of
# 10-16 rows 1.06-2.19x faster than tallskinny's rows as vectors (ROWVEC), 9 rows 0.87x
# (bench/results/2026-11-26-cpu-xeon207-wide-rows), and tallskinny beat panel to 16
# columns, not from 20 (bench/results/2026-11-23-cpu-zen5); on PoCL vec ran the wide
# shapes 1.3-5.9x faster than wide, and a C of 8 columns 2x faster than tallskinny
# (bench/results/2026-11-22-skinny). The long side from 32 on Intel's runtime: with one
# group a tile and no second launch, tallskinny ran a C of 1-16 columns and 32-256 rows
# 1.1-5x faster than panel at K = 64-4096, and one of 1-16 rows and 32-256 columns as
# fast or up to 1.15x faster (bench/results/2026-11-23-cpu-zen5-one-group).
SKINNY_LIMITS = {"work-item-vectorising": (9, 16, 32), "code-vectorising": (0, 0, SKINNY_LONG)}


# A deep-K C with neither side longer than this is tall-skinny on Intel's CPU runtime:
# tallskinny's rows as vectors ran 100 x 100 x 10000 to 256 x 256 x 8192 1.1-4x faster
# than panel there, 384 x 384 x 8192 1.3x slower (bench/results/2026-11-23-cpu-zen5); a C
# of at most 256^2 values but 512-4096 long on a side ran 1.38-2.37x faster in panel
# (32 x 2048 x 8192, 128 x 512 x 8192, 1024 x 64 x 8192, 16 x 4096 x 4096:
# bench/results/2026-11-26-cpu-xeon207-wide-rows)
CPU_DEEP_SIDE = 256

# A deep-K C of at most GPU_TALL_OUTPUT values and GPU_TALL_SIDE on its shorter side is
# tall-skinny on a GPU: on the H100 tallskinny, in tiles split by C's columns, ran C of
# 280-576 values (17 x 17, 20 x 20, 24 x 24, 15 x 20, 7 x 40, 6 x 64, 48 x 6, 36 x 8,
# 12 x 32, 3 x 100, 4 x 128, 100 x 5, 50 x 10) at K = 4096 to 2^20 1.01-3.1x faster than
# the deep-k class's split-K tiles, but for float32 12 x 32 x 16384 (0.89x) and float64
# 4 x 128 x 2^20 (0.96x); float32 32 x 32 ran 0.71x, 16 x 64 1.02x, float64 C of
# 800-1024 values 0.68-1.85x (mma's tensor-core tiles won at K = 2^20), of 4096 0.3x; C of
# 1 or 2 rows 0.82-1.53x in float32, 0.72-1.06x in float64 but for 2 x 144 (1.3-1.4x)
# (bench/results/2026-11-27-h100-tile-splits)
GPU_TALL_OUTPUT = 576
GPU_TALL_SIDE = 3
# ... and so is a C of at most GPU_SHORT_OUTPUT values over a K of GPU_SHORT_FROM or more
# (deep-k or a size class) whose tiles of 64 values read at most GPU_SHORT_READS bytes
# (gpu_tiles.tile_reads): then tallskinny's one launch, the last group of a tile summing
# it, takes less time than the split-K tiles' two, whose first wave starts and stores
# whole tiles. On the H100, in turns, at C of 128-4096 values (1-64 a side) over K =
# 1024-131072 that auto ran in split-K tiles (xgemm, wgmma, mma, wide), where the tiles
# read at most 64 MiB: tallskinny 1.05-2.44x faster at 77 float32 shapes (20 x 40 x 8192
# 2.44x, 64 x 64 x 4096 1.8-2.1x, 32 x 32 x 2048 1.54x), 1.01-1.97x at 57 of 58 float64
# ones (64 x 10 x 4096 1.96x, 64 x 64 x 4096 1.28x), 0.90x at float64 1 x 500 x 16384
# (66.6 MB); past 64 MiB 0.35-1.73x (64 x 64 x 65536 0.46-0.62x, 32 x 32 x 262144
# 0.87-0.90x) (bench/results/2026-11-27-h100-short-reads)
GPU_SHORT_OUTPUT = 4096
GPU_SHORT_FROM = 1024
GPU_SHORT_READS = 64 << 20
# ... and so is a deep-K C of at most GPU_FEW_ROWS rows by itemsize (and fewer columns
# than the skinny class's SKINNY_LONG) where tallskinny's tiles cover its columns with
# none cut short (gpu_tiles.splits_evenly) and K is as long as the tall-skinny class
# asks (TALL_SKINNY_DEPTH): on the H100 float32 C of 1-8 rows and 160-400 columns ran
# 1.15-2.27x faster in tallskinny than in mma's 16 x 128 tile (auto's before) at
# fifteen shapes of K = 370000-930000, and 1.6-2.2x at K = 65536; at K = 4096 (shorter
# than 64(M+N)) C of 1-2 rows ran 0.64-0.80x of auto's before, 4-8 rows 1.27-1.44x;
# where a short tile is left, 8 x 100 ran 0.78x and 4 x 100 0.97x. In float64 one row
# ran 1.06-1.18x faster, 2-8 rows 0.85-1.16x (mma's float64 tile on the FP64 tensor
# cores) (bench/results/2026-11-27-h100-small-c)
GPU_FEW_ROWS = {4: 8, 8: 1}
# A deep-K C of at most GPU_WIDE_FEW_ROWS rows by itemsize and WIDE_FEW_COLUMNS to
# SKINNY_LONG columns that tallskinny's tiles do not cover evenly is skinny on a GPU
# (the wide kernel, as from SKINNY_LONG columns): on the H100 float32 C of 1-3 rows and
# 257-500 columns ran 1.15-1.51x faster there than in mma's 16 x 128 tile (auto's
# before) at seventeen of eighteen shapes of K = 65536 and of 0.6 GB, 2 x 300 x 496688
# level, 1.01-1.10x at K = 4096; C of 2 rows and 160-256 columns ran 0.78-0.87x, 8 x
# 100 0.18x, and float64's 1 x 300 0.59x
# (bench/results/2026-11-27-h100-small-c, bench/results/2026-11-27-h100-spread)
GPU_WIDE_FEW_ROWS = {4: 3}
WIDE_FEW_COLUMNS = 256
# A deep-K C of GPU_FEW_COLUMNS columns by itemsize (fewest, most) and fewer rows than
# SKINNY_LONG is skinny on a GPU (tallskinny's tiles, as from SKINNY_LONG rows): on the
# H100 float32 C of 3-8 columns and 100-500 rows ran 1.42-2.18x faster there than in the
# split-K tiles (xgemm's 16 x 16, wgmma's 64 x 32) at eight shapes of K = 8192-262144
# (500 x 8 x 65536 128% -> 214% of cuBLAS), float64 C of 2-8 columns 1.06-1.64x at five
# (300 x 4 x 1e5 74% -> 121%); float32 C of 2 columns ran 0.87x, of 12-24 columns
# 0.64-1.28x (bench/results/2026-11-27-h100-shallow)
GPU_FEW_COLUMNS = {4: (3, 8), 8: (2, 8)}


def device_class(device: Device, m: int, n: int, k: int, itemsize: int = 4) -> tuple[str, str]:
    """(class, why) of a shape on this device: its shape class, with the skinny class's
    limits of the device's kind of compiler, and a deep-K shape of a small C tall-skinny
    on Intel's CPU runtime (sides up to CPU_DEEP_SIDE) and on a GPU (up to
    GPU_TALL_OUTPUT values, at least GPU_TALL_SIDE a side; up to GPU_SHORT_OUTPUT values
    over a K whose tiles read at most GPU_SHORT_READS bytes; or up to GPU_FEW_ROWS rows,
    by ``itemsize``, that tallskinny's tiles cover evenly), and one of GPU_WIDE_FEW_ROWS
    rows and WIDE_FEW_COLUMNS or more columns that they do not, or of GPU_FEW_COLUMNS
    columns and fewer than SKINNY_LONG rows, skinny on a GPU."""
    kind = compiler_kind(device)
    own, why = classify(m, n, k, SKINNY_LIMITS.get(kind, GPU_SKINNY))
    if own == "deep-k" and kind == "work-item-vectorising" and max(m, n) <= CPU_DEEP_SIDE:
        return "tall-skinny", (f"{why}; a C of {m} x {n} (sides <= {CPU_DEEP_SIDE}) is "
                               f"tall-skinny on a {kind} compiler")
    if (own == "deep-k" and device.type == "gpu" and m * n <= GPU_TALL_OUTPUT
            and min(m, n) >= GPU_TALL_SIDE):
        return "tall-skinny", (f"{why}; a C of {m * n} values (<= {GPU_TALL_OUTPUT}), "
                               f"{min(m, n)} or more a side (>= {GPU_TALL_SIDE}), is "
                               f"tall-skinny on a GPU")
    if (own in ("deep-k",) + SIZE_CLASSES and device.type == "gpu"
            and m * n <= GPU_SHORT_OUTPUT and k >= GPU_SHORT_FROM
            and (reads := tile_reads(m, n, k, itemsize)) <= GPU_SHORT_READS):
        return "tall-skinny", (f"{why}; a C of {m * n} values (<= {GPU_SHORT_OUTPUT}) over "
                               f"K = {k} (>= {GPU_SHORT_FROM}) whose tiles read "
                               f"{reads / 2**20:.1f} MiB (<= {GPU_SHORT_READS >> 20}) is "
                               f"tall-skinny on a GPU")
    if own == "deep-k" and device.type == "gpu" and n < SKINNY_LONG:
        # a C of few rows: by how tallskinny's tiles cover its columns
        few, wide = GPU_FEW_ROWS.get(itemsize, 0), GPU_WIDE_FEW_ROWS.get(itemsize, 0)
        even = splits_evenly(m, n)
        if even and m <= few and k >= TALL_SKINNY_DEPTH * (m + n):
            return "tall-skinny", (f"{why}; a C of {m} rows (<= {few} in {itemsize}-byte "
                                   f"values) that tallskinny's tiles cover evenly, K >= "
                                   f"{TALL_SKINNY_DEPTH}(M+N), is tall-skinny on a GPU")
        if not even and m <= wide and n >= WIDE_FEW_COLUMNS:
            return "skinny", (f"{why}; a C of {m} rows (<= {wide} in {itemsize}-byte "
                              f"values) and {n} columns (>= {WIDE_FEW_COLUMNS}) that "
                              f"tallskinny's tiles do not cover evenly is skinny on a GPU")
    least, most = GPU_FEW_COLUMNS.get(itemsize, (1, 0))
    if own == "deep-k" and device.type == "gpu" and m < SKINNY_LONG and least <= n <= most:
        return "skinny", (f"{why}; a C of {n} columns ({least}-{most} in {itemsize}-byte "
                          f"values) and {m} rows is skinny on a GPU")
    if own != "skinny" and classify(m, n, k)[0] == "skinny":
        rows, columns, _ = SKINNY_LIMITS[kind]
        why += (f"; not skinny on a {kind} compiler, " +
                (f"which takes at most {rows} rows or {columns} columns" if rows else
                 "where the size classes' kernels ran these faster"))
    return own, why
