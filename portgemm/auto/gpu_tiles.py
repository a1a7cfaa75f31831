"""How a GPU work-item's tallskinny tile covers a C too big for one: by C's columns.

:mod:`.tallskinny`'s model takes the tile; :mod:`.shapes` asks whether the tiles cover
C's columns evenly, which decides whether a deep-K C of few rows is tall-skinny on a GPU.
"""

from __future__ import annotations

MULTI_TILE = 64       # accumulators a GPU work-item holds where C takes several tiles


# A C too big for one work-item's tile, by its columns (bench/results/2026-11-27-h100-
# tile-splits): up to WHOLE_COLUMNS columns a tile takes them all, at most FEW_COLUMNS_ROWS
# rows where they are 3 to 5, and never 5 (4 instead); more columns go in tiles of
# COLUMN_TILE (whole vectors of B), more of them where C has few rows.
WHOLE_COLUMNS = 12
FEW_COLUMNS_ROWS = 16
COLUMN_TILE = 8


def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
    """A GPU work-item's tile of C: all of it within ``budget`` accumulators, else a split
    by C's columns.

    The split sets how each tile reads B, and that decides the speed more than the
    count of tiles does. In sweeps of the splits near the fewest tiles on the H100 (K =
    2^20, 40 float32 and 16 float64 shapes of several tiles, each split with the groups
    auto gave it), the rule before (the fewest tiles, then the squarest) ran 1.35x and
    1.32x slower than the fastest split (geometric means), up to 4.5x (11 x 12 in 11 x
    5; 32 x 6 in 32 x 2 3.2x; 7 x 32 in 7 x 9 2.4x). ptxas left most loads of such
    kernels beside their products, one memory round trip after another (tiles of 5
    columns, 8 x 6, 12 x 4, thin tiles, and tiles cut short by C's edge, which take a
    loop of their own), where the fast ones issue a step's loads together. This rule
    came to 1.02x and 1.04x: within 1.09x wherever its split was timed in float32 (31 of
    40 shapes), 1.45x at float64's 9 x 24 (8 x 8) and 1.21x at its 21 x 12 (5 x 12):
    - up to WHOLE_COLUMNS columns: all of them, as many rows as fit (32 x 6 in 10 x 6,
      11 x 12 in 5 x 12); where they are 3 to 5, at most FEW_COLUMNS_ROWS rows (64 x 3
      in 21 x 3 ran 1.24x slower than in 16 x 3; C of 1 or 2 columns was not timed),
      and 4 of 5 (tiles of 5 columns ran 2.3-3.1x slower);
    - more: tiles of COLUMN_TILE columns, two whole vectors of B's row, and as many rows
      as fit (9 x 16 and 6 x 32 in 8 x 8 and 6 x 8); where C has fewer rows than
      budget / COLUMN_TILE, more columns (in multiples of COLUMN_TILE) as its rows leave
      room for (3 x 64 in 3 x 16), down to half of them where fewer divide C's columns
      (1 x 160 in 1 x 40, not 1 x 64 and a short 1 x 32: even_columns).
    Only the H100 was timed (bench/results/2026-11-27-h100-tile-splits); the schedules
    come from its compiler, so another device or driver may favour other splits."""
    if m * n <= budget:
        return m, n
    if n <= WHOLE_COLUMNS:
        cols = 4 if n == 5 else n
        rows = min(m, budget // cols, FEW_COLUMNS_ROWS if 3 <= n < 6 else budget)
    else:
        rows = max(1, min(m, budget // COLUMN_TILE))  # a square tile's rows, or C's fewer
        cols = even_columns(n, max(1, budget // rows // COLUMN_TILE) * COLUMN_TILE)
        rows = min(m, budget // cols)
    return rows, cols


def even_columns(n: int, most: int) -> int:
    """Columns of a tile of a C of n columns: the most multiple of COLUMN_TILE, from
    ``most`` down to half of it, that divides n, so that no tile is cut short by C's
    edge; else ``most``. A short tile takes a loop of its own, which ptxas builds with
    the slow schedule: on the H100 C of 1-4 rows and 120-400 columns over a deep K ran
    1.30-2.90x faster in float32 (1.54-1.74x in float64) in tiles of 40, 48, 24, 16 or
    8 columns that divide C's than in auto's 64, 32 or 16 and a short one; where no
    such count divides C, they ran as before. The same for rows (10 x 13 in 5 x 8, 32 x 6
    in 8 x 6) ran 0.35-1.02x (bench/results/2026-11-27-h100-small-c)."""
    for cols in range(most, (most - 1) // 2, -COLUMN_TILE):
        if n % cols == 0:
            return cols
    return most


def tile_reads(m: int, n: int, k: int, itemsize: int) -> int:
    """Bytes that tiles of MULTI_TILE values read over K: each its rows of A and its
    columns of B, once (at most what tallskinny's tiles of a C of several read; a C of
    one tile reads less)."""
    rows, cols = tile_for(m, n, MULTI_TILE)
    return (-(-n // cols) * m + -(-m // rows) * n) * k * itemsize


def splits_evenly(m: int, n: int) -> bool:
    """Whether a GPU's tiles of a C too big for one work-item (tile_for, MULTI_TILE
    accumulators) cover its columns with none cut short."""
    return n % tile_for(m, n, MULTI_TILE)[1] == 0
