"""Report 003 (oneAPI/SYCL exercise): the tileX x tileY sweep against the serial CPU, and
the input-register length sweep. Both at 512 x 512 x 512, the report's only size; its
results are figures (3.1, 3.2), described in words here."""

from __future__ import annotations

from .spec import Experiment, Mode, PlotSpec, Point, pick

WG = {"wg_y": 16, "wg_x": 16}  # the report's BLOCK x BLOCK local range (BLOCK not given)


def _size(mode: Mode) -> tuple[int, int, int]:
    n = pick(mode, full=512, quick=512, tiny=64)
    return (n, n, n)


def tile_points(mode: Mode) -> list[Point]:
    tiles = pick(mode, full=(1, 2, 4, 8, 16, 32), quick=(1, 2, 4, 8, 16, 32), tiny=(1, 2, 4))
    size = _size(mode)
    return ([Point("tiled", f"{t}x{t}", "tiled", size, {"tile_y": t, "tile_x": t, **WG})
             for t in tiles]
            + [Point("serial CPU (ijk)", "serial", "serial-ijk", size, on="host")])


TILE_SWEEP = Experiment(
    name="003-tile-sweep",
    summary="register tile tileY x tileX = 1x1..32x32 at 512, against the serial CPU loop",
    source="report 003, section 3.1 (figure 3.1)",
    timed="kernel",
    points=tile_points,
    plot=PlotSpec(kind="line", xlabel="tileY x tileX", reference_lines=("serial CPU (ijk)",)),
    reading="""
Each work-item computes a tileY x tileX block of C with its inputs in private registers:
portgemm's `tiled` (LENGTH 1), square tiles 1 x 1 to 32 x 32 as the figure's labels
suggest (its exact list is not in the text). The report's local range is BLOCK x BLOCK
with BLOCK not given; 16 x 16 here (it still divides the 16 x 16 items that 32 x 32 tiles
leave at 512). The report times the SYCL kernel; here its event time. The serial CPU is
the plain triple loop (`serial-ijk`, host), drawn as a horizontal line. portgemm refuses
tiles whose private values exceed its per-work-item register budget (512 values; 32 x 32
holds 1024 accumulators and 64 operands), so that point shows as skipped with the limit
named.
""",
    report_says="Figure 3.1 only; the text: time falls as the tile grows up to 8 x 8 (the "
                "knee), then rises; at 32 x 32 the device is slower than the serial CPU.",
)


def length_points(mode: Mode) -> list[Point]:
    lengths = pick(mode, full=(1, 2, 4, 8, 16, 32, 64), quick=(1, 2, 4, 8, 16, 32, 64),
                   tiny=(1, 2, 4))
    return [Point("inreg, tile 2x2", f"{2 * n}+{2 * n}", "inreg", _size(mode),
                  {"tile_y": 2, "tile_x": 2, "length": n, **WG})
            for n in lengths]


LENGTH_SWEEP = Experiment(
    name="003-length-sweep",
    summary="input registers, tileX = tileY = 2, 2+2..128+128 registers (length 1..64) at 512",
    source="report 003, section 3.2 (figure 3.2)",
    timed="kernel",
    points=length_points,
    plot=PlotSpec(kind="line", xlabel="input registers (A + B)"),
    reading="""
With tileX = tileY = 2, each step reads `length` values of K into tileY x length registers
for A and length x tileX for B, so "2+2" is length 1 and "128+128" is length 64:
portgemm's `inreg` with tile 2 x 2 and length 1..64, 16 x 16 work-groups (as for the tile
sweep), at the report's 512, kernel event time.
""",
    report_says="Figure 3.2 only; the text: time falls from 2+2 to 4+4, keeps improving "
                "slightly up to 64+64, and at 128+128 the kernel runs at about a quarter of "
                "the speed of 2+2.",
)

EXPERIMENTS = (TILE_SWEEP, LENGTH_SWEEP)
