"""How a packing family (panel, vec: ``PACKED``) lays its tile over one shape and
whether it packs B first: the choice's parameters, fitted to C.

* **Columns.** A panel work-group holds NR = tile_x * wg_x columns of C; where N is not
  much more than NR, the last group computes columns past N for nothing (N = 64 with
  NR = 48: 96 computed). There panel takes the tile_x of its space that pads N least,
  with as many rows as keep the accumulators near the entry's, at most
  ``REFIT_ROWS``. On Intel's runtime 4096 x 64 x 4096 ran 2.3x faster as 6 x 4 than
  as 8 x 3, 4096 x 32 x 4096 2.8x as 8 x 2. vec, whose work-item holds a fixed run of
  tile_x columns, takes fewer work-items along N in a group instead (wg_x) where C has
  at most two groups' columns: on PoCL 1.1-1.3x faster at 100-200 columns.
* **Columns (vec).** A C narrower than a vec work-item's tile_x takes as few vectors as
  cover it (one column: a scalar tile, B in place).
* **Rows.** A vec work-item holds tile_y rows of C; a C of fewer rows takes them all in
  one work-item and one row of work-items a group (on PoCL 1 x 4096 x 4096 ran 3x
  faster, 3-5 rows 1.3-1.4x). A vec group's rows of work-items share one panel of B,
  which the caches keep while the group's work-items run one after another (PoCL); a
  group has no more rows of work-items than C has tiles of rows, and, halving them, at
  least ``GROUPS_PER_UNIT`` groups per compute unit. A shallow K leaves no panel worth
  sharing and makes the work writing C: there the group is wide along N
  (``SHALLOW_GROUP``), and a panel tile 16 or 32 vectors wide (``SHALLOW_RUNS``: float32
  at K up to 8, a large float64 C at K up to 5), so that it writes C in long runs.
* **B in place.** Packing B costs a pass over it, repaid by the faster reads of a group
  that reuses its panel of B over many rows of C; a C of few rows does not
  (``IN_PLACE_ROWS``, per family), unless (vec) its row pitch is whole pages
  (``IN_PLACE_PAGE``) and more than one tile of rows re-reads it. Panel with B in place
  takes panels of K at most ``IN_PLACE_KC`` deep: their rows lie ldb apart, which for a
  power-of-two ldb puts them all in a few sets of the caches.

Measured: bench/results/2026-11-22-cpu-packing, 2026-11-23-cpu-pocl-groups
(``bench/packing_ab.py``, ``tune``).
"""

from __future__ import annotations

from math import ceil
from typing import Any, NamedTuple

from ..errors import ParameterError
from ..families.base import Variant
from .shapes import SHALLOW_K_MOST

# rows of C up to which B is read in place: panel on Intel's runtime ran 1.1-1.8x faster
# in place from 32 to 128 rows, level at 256; vec on PoCL 1.04-2x faster to 32 rows,
# 1.3x slower at 64 (bench/results/2026-11-22-skinny/packing-*.txt)
IN_PLACE_ROWS = {"panel": 128, "vec": 32}
IN_PLACE_KC = 128     # panel's deepest panel of K with B in place
# vec packs a few rows' B after all where its row pitch is whole pages of this many bytes
IN_PLACE_PAGE = {"vec": 4096}
COLUMN_SLACK = 1.10   # refit panel's tile where its groups compute more columns than this x N
REFIT_ROWS = 8        # rows of a refitted tile, at most (one stream of A each)
REFIT_KEEP = 2 / 3    # a refitted tile keeps at least this share of the accumulators
NARROW_GROUPS = 2     # vec refits its groups for a C of at most this many groups' columns
GROUPS_PER_UNIT = 4   # vec's groups per compute unit at least, where halving wg_y gives them
SHALLOW_GROUP = (2, 4)  # vec's work-items a group down M at most, along N at least, for ...
                        # ... a K of at most SHALLOW_K_MOST (the shallow-k class's bound)
# panel at a shallow K, by itemsize: (K at most, C's bytes at least, the tile: rows x
# vectors, the most a group's columns may pad C's): float32 in tiles of 4 rows by 16
# vectors (runs of C's rows 16x as long), float64 where C is large in 2 x 32 (runs of 4 KB).
# With AVX-512, auto.shallow sends a float64 K of at most 32 (and a float32 K of 9-48) to
# vec before panel is chosen, so there the float64 tile serves only narrower SIMD units
SHALLOW_RUNS = {4: (8, 0, (4, 16), COLUMN_SLACK), 8: (5, 32 << 20, (2, 32), 1.25)}


class Target(NamedTuple):
    """What a refit fits the parameters to: an m x n C of depth k (None: not known), on a
    device of ``units`` compute units, elements of ``itemsize`` bytes."""

    m: int
    n: int
    k: int | None
    units: int
    itemsize: int


def fit_packing(impl: Variant, params: dict[str, Any], m: int, n: int, k: int | None = None,
                units: int = 1, itemsize: int = 4) -> tuple[dict[str, Any], list[str]]:
    """(parameters fitted to the :class:`Target`, what changed and why) for a family that
    packs B (``PACKED``); other families' parameters come back as they are."""
    if "PACKED" not in impl.defaults:
        return params, []
    target = Target(m, n, k, units, itemsize)
    refits = {"panel": (_fit_shallow_runs, _fit_columns, _fit_in_place, _fit_index_limit),
              "vec": (_fit_rows, _fit_narrow, _fit_shallow, _fit_group, _fit_group_rows,
                      _fit_in_place, _fit_index_limit)}
    notes = []
    for refit in refits.get(impl.name, ()):
        params, note = refit(impl, params, target)
        notes += [note] if note else []
    return params, notes


def _fit_in_place(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """B read in place for a C of at most IN_PLACE_ROWS rows (the family's) that has a
    work-item's columns: a narrower C would read B in place element by element (vec on
    PoCL, 32 x 32 x 2^20: 2x slower than packed). Where the family has an IN_PLACE_PAGE,
    a row pitch of whole such pages under more than one tile of rows stays packed: the
    next tile of rows reads B's run again, which rows sharing a few cache sets evicted
    (vec on PoCL, 12-32 x 1024-8192 x K: 1.1-1.5x faster packed, level at 2000-5000
    columns)."""
    rows, page = IN_PLACE_ROWS.get(impl.name, 0), IN_PLACE_PAGE.get(impl.name)
    tile_rows, tile_columns = impl.elements_per_item(params)
    pitch_of_pages = page is not None and c.m > tile_rows and c.n * c.itemsize % page == 0
    if not params.get("PACKED") or c.m > rows or c.n < tile_columns or pitch_of_pages:
        return params, ""
    why = f"a C of {c.m} rows (<= {rows}) does not repay packing it"
    params = {**params, "PACKED": 0}
    if "KC" in params and params["KC"] > IN_PLACE_KC:
        params["KC"] = IN_PLACE_KC
        why += f"; panels of K {IN_PLACE_KC} deep"
    return params, f"B read in place (PACKED=0): {why}"


def _fit_index_limit(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """An operand read in place where packed in panels it would pass the kernels' 32-bit
    index limit (padded to whole panels) though it does not itself: auto raised the
    plan's ParameterError, advising PACKED=0, for a call that named no parameters
    (237 x 1021 x 2^21 on Intel's runtime)."""
    if c.k is None:
        return params, ""
    notes = []
    for flag in ("PACKED", "PACK_A"):
        if not params.get(flag):
            continue
        try:
            impl.plan(c.m, c.n, c.k, params, c.itemsize)
        except ParameterError as exc:
            if f"use {flag}=0" not in str(exc):
                raise
            params = {**params, flag: 0}
            notes.append(f"{flag}=0: packed in panels the operand passes the 32-bit index "
                         f"limit")
    return params, "; ".join(notes)


def _changed(params: dict[str, Any], fitted: dict[str, Any], note: str) -> tuple[dict, str]:
    """(fitted, note), or (params, "") where the refit changed nothing."""
    return (params, "") if fitted == params else (fitted, note)


def _fit_rows(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """vec: a C of fewer rows than a work-item's tile in one work-item (tile_y = M) and
    one row of work-items a group: rows past M are computed for nothing, and a group's
    idle row of work-items cost PoCL as much again (1 x 4096 x 4096: 3x faster)."""
    if c.m >= params["tile_y"]:
        return params, ""
    return ({**params, "tile_y": c.m, "wg_y": 1},
            f"tile of {c.m} row{'s' * (c.m > 1)} x {params['tile_x']} for a C of {c.m} "
            f"(was {params['tile_y']} rows, groups of {params['wg_y']} along M)")


def _fit_narrow(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """vec: a C narrower than a work-item's columns in as few vectors as cover it, one
    column in a scalar tile reading B in place: every column past N is multiply-adds for
    nothing (PoCL, 4096 x 1-16 x 4096: 1.6-2.3x faster in one vector of 16 than in
    three, and 4096-8192 x 1 x K 1.1-1.6x faster again with one column)."""
    if c.n >= params["tile_x"]:
        return params, ""
    if c.n == 1:
        fitted = {**params, "tile_x": 1, "vw": 1, "PACKED": 0}
    else:
        fitted = {**params, "tile_x": ceil(c.n / params["vw"]) * params["vw"]}
    return _changed(params, fitted, f"tile of {params['tile_y']} rows x {fitted['tile_x']} "
                    f"for a C of {c.n} column{'s' * (c.n > 1)} (was x {params['tile_x']})")


def _fit_shallow(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """vec: a shallow K (at most SHALLOW_K_MOST) in groups of at most SHALLOW_GROUP rows
    and columns of work-items: there the work is writing C, which a group of many rows
    and one column of work-items writes in short runs over as many pages, and its shared
    panel of B is too short to matter (PoCL: 4096 x 4096 x 8 3.7x, 2048^2 x 32 3.4x,
    4096^2 x 64 1.8x, 2048^2 x 128 1.1x faster than in groups of 32 x 1)."""
    rows, columns = SHALLOW_GROUP
    wide_enough = params["wg_y"] <= rows and params["wg_x"] >= columns
    if c.k is None or c.k > SHALLOW_K_MOST or wide_enough:
        return params, ""
    fitted = {**params, "wg_y": min(params["wg_y"], rows), "wg_x": max(params["wg_x"], columns)}
    return fitted, (f"groups of {fitted['wg_y']} x {fitted['wg_x']} work-items for K = {c.k} "
                    f"(<= {SHALLOW_K_MOST}; was {params['wg_y']} x {params['wg_x']})")


def _fit_shallow_runs(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """panel: a shallow K in the wide tiles of SHALLOW_RUNS. With so few steps the work
    is writing C, which a group writes in runs of its tile_x x 16 columns a row. On
    Intel's runtime (a Xeon of model 207, whose speed drifts):
    - float32, K of at most 8: 4 x 16 writes runs of 1 KB where the entries' 8 x 3 wrote
      192 bytes. It beat 8 x 3 in 10 of 12 comparisons at K = 4-8 (1.05-1.67x), the 4 x 6
      entry 0.85-1.45x over three runs of 5 rounds; from K = 16 it ran 1.13-1.49x slower
      (bench/results/2026-11-27-cpu-xeon207-survey).
    - float64, K of at most 5 and C of 32 MB or more: 2 x 32 (runs of 4 KB) took 0.52-1.04x
      the time of the entry's 4 x 3 at 12 comparisons over three runs, 0.75x in the
      geometric mean, and 0.49-0.68x at seven C whose columns its groups of 512 pad by
      16-20% (2600 x 2600 x 4: 40% -> 80% of numpy; 8 x 6, the tile that pads them
      least, 0.62-0.84x); C of 8-19 MB ran 0.78-1.29x, and K = 6-8 0.77-1.44x
      (bench/results/2026-11-27-cpu-xeon207-float64-shallow).
    A C whose columns would leave the wider groups padded more than the table allows
    keeps its tile (and _fit_columns' refit)."""
    if c.k is None or c.itemsize not in SHALLOW_RUNS:
        return params, ""
    most_k, least_bytes, (rows, columns), slack = SHALLOW_RUNS[c.itemsize]
    group = columns * impl.work_group(params)[1]
    if (c.k > most_k or c.m * c.n * c.itemsize < least_bytes
            or ceil(c.n / group) * group > slack * c.n):  # C too narrow to fill it
        return params, ""
    return _changed(params, _with_tile(params, rows, columns),
                    f"tile of {rows} rows x {columns} for K = {c.k} (<= {most_k}; "
                    f"was {params['tile_y']} x {params['tile_x']})")


def _with_tile(params: dict[str, Any], tile_y: int, tile_x: int) -> dict[str, Any]:
    """panel's params with a new tile, MB rounded up to whole tiles of rows (a group walks
    its MB rows tile_y at a time: a tuned MB of 90 fits 6 rows, not 4)."""
    return {**params, "tile_y": tile_y, "tile_x": tile_x,
            "MB": ceil(params["MB"] / tile_y) * tile_y}


def _fit_group(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """vec: a work-group of fewer work-items along N where its columns pad a C of at most
    NARROW_GROUPS groups' columns less (at 600 and 1000 columns, fewer work-items a
    group were level or slower on PoCL)."""
    columns = impl.elements_per_item(params)[1]

    def padded(wg_x: int) -> int:
        return ceil(c.n / (columns * wg_x)) * columns * wg_x

    if padded(params["wg_x"]) <= COLUMN_SLACK * c.n or \
            c.n > NARROW_GROUPS * columns * params["wg_x"]:
        return params, ""
    wg_x = min((w for w in impl.space["wg_x"] if w <= params["wg_x"]),
               key=lambda w: (padded(w), -w))
    return _changed(params, {**params, "wg_x": wg_x},
                    f"groups of {wg_x} work-items along N for {c.n} columns ({padded(wg_x)} "
                    f"computed, where {params['wg_x']} computed {padded(params['wg_x'])})")


def _fit_group_rows(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """vec: no more rows of work-items a group than C has tiles of rows (an idle row
    costs PoCL a pass of the group's loop), then half as many while C would give fewer
    than GROUPS_PER_UNIT groups per compute unit (a many-core host's cores kept busy;
    not measured beyond 2 cores)."""
    rows, columns = impl.elements_per_item(params)
    row_tiles, column_groups = ceil(c.m / rows), ceil(c.n / (columns * params["wg_x"]))
    wg_y = min(params["wg_y"], row_tiles)
    while wg_y > 1 and ceil(row_tiles / wg_y) * column_groups < GROUPS_PER_UNIT * c.units:
        wg_y //= 2
    return _changed(params, {**params, "wg_y": wg_y},
                    f"groups of {wg_y} work-items along M for {row_tiles} tiles of rows on "
                    f"{c.units} compute unit{'s' * (c.units > 1)} (was {params['wg_y']})")


def _fit_columns(impl: Variant, params: dict[str, Any], c: Target) -> tuple[dict, str]:
    """panel: the tile_x (and rows) whose groups pad N least; a shallow K's tile
    (_fit_shallow_runs') stands."""
    lanes = impl.work_group(params)[1]
    rows, columns = impl.elements_per_item(params)

    def padded(tile_x: int) -> int:
        return ceil(c.n / (tile_x * lanes)) * tile_x * lanes

    most_k, _, shallow_tile, _ = SHALLOW_RUNS.get(c.itemsize, (0, 0, None, 0))
    if padded(columns) <= COLUMN_SLACK * c.n or (
            c.k is not None and c.k <= most_k and (rows, columns) == shallow_tile):
        return params, ""
    accumulators = rows * columns
    tiles = []
    for tile_x in impl.space["tile_x"]:
        fitting = [y for y in impl.space["tile_y"]
                   if y * tile_x <= accumulators and y <= REFIT_ROWS]
        if fitting and max(fitting) * tile_x >= REFIT_KEEP * accumulators:
            tiles.append((padded(tile_x), -tile_x, max(fitting)))
    if not tiles:
        return params, ""
    _, minus_x, tile_y = min(tiles)
    if -minus_x == columns and tile_y == rows:
        return params, ""
    return _with_tile(params, tile_y, -minus_x), (
        f"tile {tile_y} x {-minus_x} for {c.n} columns (groups of {-minus_x * lanes}: "
        f"{padded(-minus_x)} computed, where {rows} x {columns} computed {padded(columns)})")
