"""tallskinny's split of a C too big for one work-item's tile: auto's beside another
rule (--rule), fixed splits (--tiles) and every split near the fewest tiles (--near),
each with the groups auto's model gives that split, and (--vary) the same points with
parameters changed. The rules: fewest (the fewest tiles, then the squarest: auto's
until 2026-11-27), loads (the split that loads the fewest values a step of K, a run of
16 bytes one load where the kernel reads it as a vector, where it loads at most
LEANER_SPLIT of the fewest tiles'), vectors (vector_split), columns (column_split, the
sweeps' rule, auto's since), even and even-columns (even_split: no tile cut short
by C's edge). Taken in turns in one process, on the same operands
(group_counts.py's timing: median of 10 after 2 a round, the order rotated each round),
kernel time from OpenCL events; each point's speed over auto's (> 1: faster). (At
59d308e the candidate "loads" was auto's rule, and the printout named it "auto" and the
fewest tiles "before".)

    python3 bench/gpu/tile_split.py [--shapes 32x6x1048576,...] [--rule fewest|loads|vectors|columns|even|even-columns]
        [--tiles 4x12,5x12] [--near] [--vary GS=22] [--any-class] [--rounds 5] [--json split.json]
"""

from __future__ import annotations

from math import ceil

import portgemm
import portgemm.auto.tallskinny as model
from portgemm.auto import choice
from portgemm.auto.tallskinny import tile_for as shipped_tile_for

from group_counts import measure_shapes, shape_parser

SHAPES = ("32x6x1048576,32x6x8388608,6x32x1048576,64x3x1048576,3x64x1048576,"
          "12x12x1048576,12x12x8388608,41x6x1048576,20x10x1048576,16x9x8388608")

LEANER_SPLIT = 0.85
ANY_CLASS = False  # --any-class: time shapes auto gives another variant, on tallskinny's model


def step_loads(m: int, n: int, tile: tuple[int, int], layout: str, itemsize: int) -> int:
    """Loads a step of K costs C's tiles: each its rows of A and its columns of B, a run
    of 16 bytes one load where the kernel reads it as a vector."""
    rows, cols = tile
    width = 16 // itemsize
    a = rows // width if layout[0] == "F" and rows % width == 0 and m % width == 0 else rows
    b = cols // width if layout[1] == "C" and cols % width == 0 and n % width == 0 else cols
    return ceil(m / rows) * ceil(n / cols) * (a + b)


def row_splits(m: int, n: int, budget: int) -> list[tuple[int, int]]:
    """For each count of rows, the most columns that fit ``budget`` accumulators."""
    return [(rows, min(n, budget // rows)) for rows in range(1, min(m, budget) + 1)]


def with_vector_columns(splits, width: int) -> set[tuple[int, int]]:
    """The splits, and each with its columns cut to whole vectors of ``width`` values."""
    return {(rows, c) for rows, cols in splits for c in (cols, cols - cols % width) if c}


def fewest_split(layout: str, itemsize: int):
    """auto's rule until 2026-11-27, as model.tile_for takes it: the fewest tiles, then
    the squarest (the first such count of rows)."""
    def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
        if m * n <= budget:
            return m, n
        return min(row_splits(m, n, budget), key=lambda tile: (ceil(m / tile[0]) * ceil(n / tile[1]),
                                             abs(tile[0] - tile[1])))
    return tile_for


def leaner_split(layout: str, itemsize: int):
    """The candidate rule, as model.tile_for takes it: auto's split unless another loads
    at most LEANER_SPLIT of its values a step."""
    def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
        fewest = fewest_split(layout, itemsize)(m, n, budget)
        if m * n <= budget:
            return fewest
        leanest = min(row_splits(m, n, budget), key=lambda tile: (step_loads(m, n, tile, layout, itemsize),
                                                ceil(m / tile[0]) * ceil(n / tile[1]),
                                                abs(tile[0] - tile[1])))
        lean = step_loads(m, n, leanest, layout, itemsize)
        return leanest if lean <= LEANER_SPLIT * step_loads(m, n, fewest, layout,
                                                            itemsize) else fewest
    return tile_for


def vector_split(layout: str, itemsize: int):
    """The second candidate, as model.tile_for takes it: among the splits of auto's rule
    and, where B's rows are whole vectors, the same with the columns cut to whole
    vectors, none with a side of one value where C's is longer (1 x 64 spills): the
    fewest tiles, then the most sides read as whole vectors (B's columns where B is
    row-major, A's rows where A is column-major: the side a multiple of 16 bytes, and
    C's too), then no tile cut short on such a side (the kernel reads it value by
    value), then the squarest, then the most accumulators, then the fewest rows."""
    width = 16 // itemsize
    along_a = layout[0] == "F"
    along_b = layout[1] == "C"

    def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
        if m * n <= budget:
            return m, n

        def key(tile):
            rows, cols = tile
            a_vectors = along_a and rows % width == 0 and m % width == 0
            b_vectors = along_b and cols % width == 0 and n % width == 0
            short = (a_vectors and m % rows != 0) + (b_vectors and n % cols != 0)
            thin = (rows == 1 < m) or (cols == 1 < n)
            return (thin, ceil(m / rows) * ceil(n / cols), -(a_vectors + b_vectors), short,
                    abs(rows - cols), -rows * cols, rows)
        splits = row_splits(m, n, budget)
        if along_b and n % width == 0:
            splits = with_vector_columns(splits, width)
        return min(splits, key=key)
    return tile_for


def even_split(layout: str, itemsize: int):
    """auto's split (tile_for) with no tile cut short by C's row edge where a nearby one
    avoids it: the most rows, up to auto's and at least half of them, that divide C's.
    (The same for C's columns, the rule "even-columns" that
    bench/results/2026-11-27-h100-small-c 8-even/ ran beside d2cf752's auto, has been
    auto's own since b965d86: gpu_tiles.even_columns.)"""
    def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
        rows, cols = shipped_tile_for(m, n, budget)
        if m * n > budget and m % rows:
            even = [r for r in range(rows, (rows + 1) // 2 - 1, -1) if m % r == 0]
            rows = even[0] if even else rows
        return rows, cols
    return tile_for


# "columns": auto's rule since 2026-11-27 (split_rules.sh ran it as a candidate at
# 524d4c1, before it gave 4 columns for 5 and left C of 1-2 columns 64 and 32 rows)
RULES = {"fewest": fewest_split, "loads": leaner_split, "vectors": vector_split,
         "columns": lambda layout, itemsize: shipped_tile_for, "even": even_split,
         "even-columns": lambda layout, itemsize: shipped_tile_for}  # the same since b965d86


def near_splits(m: int, n: int, budget: int, itemsize: int, more: int = 1) -> list:
    """The splits a rule might take: for each count of rows the most columns that fit
    and that count cut to whole vectors (16 bytes), no side of one value where C's is
    longer, at most ``more`` tiles over the fewest of them."""
    splits = {(rows, cols) for rows, cols in
              with_vector_columns(row_splits(m, n, budget), 16 // itemsize)
              if not (rows == 1 < m or cols == 1 < n)}
    count = {tile: ceil(m / tile[0]) * ceil(n / tile[1]) for tile in splits}
    fewest = min(count.values())
    return sorted(tile for tile in splits if count[tile] <= fewest + more)


def auto_with(tile_rule, device, m, n, k, itemsize):
    """auto's tallskinny parameters with tile_rule splitting C; where auto takes another
    variant for the shape (--any-class), tallskinny's own model's"""
    kept = model.tile_for
    model.tile_for = tile_rule
    choice._memo.clear()
    try:
        chosen = portgemm.auto.choose(device, m, n, k, itemsize)
        if chosen.variant != "tallskinny" and ANY_CLASS:
            params, why = model.tallskinny_params(device, m, n, k, itemsize)
            chosen = choice.Choice("tallskinny", params, why)
        return chosen
    finally:
        model.tile_for = kept
        choice._memo.clear()


def main():
    p = shape_parser(__doc__, SHAPES, "tile_split.json")
    p.add_argument("--rule", default="fewest", choices=sorted(RULES),
                   help="the rule timed beside auto's: fewest (auto's before 2026-11-27), "
                        "loads (LEANER_SPLIT), vectors (vector_split), columns "
                        "(column_split, auto's since), even and even-columns (even_split)")
    p.add_argument("--tiles", default="",
                   help="more splits to time, RxC[,RxC], each with auto's other parameters")
    p.add_argument("--vary", action="append", default=[], metavar="KEY=V[,KEY=V]",
                   help="also time each point with these parameters changed (the kernel's "
                        "AHEAD=1: the next steps' loads before this step's products); a "
                        "new BS keeps the work-items a tile (GS scaled)")
    p.add_argument("--any-class", action="store_true",
                   help="time shapes auto routes elsewhere too, on tallskinny's own model")
    p.add_argument("--near", action="store_true",
                   help="time every split of near_splits too (auto's budget of accumulators)")
    args = p.parse_args()
    global ANY_CLASS
    ANY_CLASS = args.any_class

    def fixed(tile):
        return lambda m, n, budget: tile if m * n > budget else (m, n)

    def points_for(device, m, n, k, itemsize):
        rules = {"auto": shipped_tile_for, args.rule: RULES[args.rule]("CC", itemsize)}
        tiles = [tuple(map(int, spec.split("x"))) for spec in filter(None, args.tiles.split(","))]
        if args.near:
            tiles += near_splits(m, n, model.MULTI_TILE, itemsize)
        for tile in tiles:
            rules.setdefault(f"{tile[0]}x{tile[1]}", fixed(tile))
        chosen = {name: auto_with(rule, device, m, n, k, itemsize)
                  for name, rule in rules.items()}
        if any(c.variant != "tallskinny" for c in chosen.values()):
            return None
        points = {name: c.params for name, c in chosen.items()}
        plain = list(points.items())
        for spec in args.vary:
            change = {key: int(value) for key, value in
                      (item.split("=") for item in spec.split(","))}
            for name, params in plain:
                varied = dict(params, **change)
                if "BS" in change:
                    varied["GS"] = max(1, params["GS"] * params["BS"] // change["BS"])
                points[f"{name}+{spec}"] = varied
        return points

    def line(points, med):
        return " | ".join(f"{name} {p['tile_y']}x{p['tile_x']} GS {p['GS']} BS {p['BS']}: "
                          f"{med[name] * 1e3:8.1f} us {med['auto'] / med[name]:.3f}"
                          for name, p in points.items())

    measure_shapes(args, points_for, line)


if __name__ == "__main__":
    main()
