"""tallskinny's split of a C too big for one work-item's tile: auto's (the fewest tiles,
then the squarest) beside a candidate rule, the split that loads the fewest values a step
of K over all tiles (a run of 16 bytes one load where the kernel reads it as a vector),
taken where it loads at most LEANER_SPLIT of what auto's does, each with the groups
auto's model gives that split. Taken in turns in one process, on the same operands
(group_counts.py's timing: median of 10 after 2 a round, the order rotated each round),
kernel time from OpenCL events. (At 59d308e the candidate was auto's rule, and the
printout named it "auto" and the fewest tiles "before".)

    python3 bench/gpu/tile_split.py [--shapes 32x6x1048576,...] [--rounds 5] [--json split.json]
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


def step_loads(m: int, n: int, tile: tuple[int, int], layout: str, itemsize: int) -> int:
    """Loads a step of K costs C's tiles: each its rows of A and its columns of B, a run
    of 16 bytes one load where the kernel reads it as a vector."""
    rows, cols = tile
    width = 16 // itemsize
    a = rows // width if layout[0] == "F" and rows % width == 0 and m % width == 0 else rows
    b = cols // width if layout[1] == "C" and cols % width == 0 and n % width == 0 else cols
    return ceil(m / rows) * ceil(n / cols) * (a + b)


def leaner_split(layout: str, itemsize: int):
    """The candidate rule, as model.tile_for takes it: auto's split unless another loads
    at most LEANER_SPLIT of its values a step."""
    def tile_for(m: int, n: int, budget: int) -> tuple[int, int]:
        fewest = shipped_tile_for(m, n, budget)
        if m * n <= budget:
            return fewest
        splits = [(rows, min(n, budget // rows)) for rows in range(1, min(m, budget) + 1)]
        leanest = min(splits, key=lambda tile: (step_loads(m, n, tile, layout, itemsize),
                                                ceil(m / tile[0]) * ceil(n / tile[1]),
                                                abs(tile[0] - tile[1])))
        lean = step_loads(m, n, leanest, layout, itemsize)
        return leanest if lean <= LEANER_SPLIT * step_loads(m, n, fewest, layout,
                                                            itemsize) else fewest
    return tile_for


def auto_with(tile_rule, device, m, n, k, itemsize):
    """auto's tallskinny parameters with tile_rule splitting C"""
    kept = model.tile_for
    model.tile_for = tile_rule
    choice._memo.clear()
    try:
        return portgemm.auto.choose(device, m, n, k, itemsize)
    finally:
        model.tile_for = kept
        choice._memo.clear()


def main():
    args = shape_parser(__doc__, SHAPES, "tile_split.json").parse_args()

    def points_for(device, m, n, k, itemsize):
        chosen = {"auto": auto_with(shipped_tile_for, device, m, n, k, itemsize),
                  "loads": auto_with(leaner_split("CC", itemsize), device, m, n, k,
                                     itemsize)}
        if any(c.variant != "tallskinny" for c in chosen.values()):
            return None
        return {name: c.params for name, c in chosen.items()}

    def line(points, med):
        tile = {name: f"{p['tile_y']}x{p['tile_x']} GS {p['GS']} BS {p['BS']}"
                for name, p in points.items()}
        return (f"auto {tile['auto']}: {med['auto'] * 1e3:8.1f} us | loads {tile['loads']}: "
                f"{med['loads'] * 1e3:8.1f} us | auto / loads {med['auto'] / med['loads']:.3f}")

    measure_shapes(args, points_for, line)


if __name__ == "__main__":
    main()
