"""Report 004 (SYSU CUDA lab): global-memory and shared-memory GEMM at 4096, TILE_WIDTH
4..32, timed from the copies to the device to the copy back."""

from __future__ import annotations

from .spec import Experiment, Mode, PlotSpec, Point, pick

TABLE = {  # TILE_WIDTH: ms, from the report's two tables
    "global memory": {4: 291.251, 8: 253.342, 16: 209.144, 32: 184.743},
    "shared memory": {4: 287.245, 8: 262.631, 16: 191.578, 32: 163.972},
}


def _params(kernel: str, width: int) -> tuple[str, dict]:
    if kernel == "global memory":
        return "naive", {"wg_y": width, "wg_x": width}
    return "local", {"wg_y": width, "wg_x": width, "tile_y": 1, "tile_x": 1, "tile_k": width}


def tile_width_points(mode: Mode) -> list[Point]:
    n = pick(mode, full=4096, quick=1024, tiny=64)
    widths = pick(mode, full=(4, 8, 16, 32), quick=(4, 8, 16, 32), tiny=(4, 8))
    points = []
    for kernel in TABLE:
        for width in widths:
            variant, params = _params(kernel, width)
            points.append(Point(kernel, width, variant, (n, n, n), params,
                                seed=TABLE[kernel][width] if n == 4096 else None))
    return points


TILE_WIDTH = Experiment(
    name="004-tile-width",
    summary="global-memory and shared-memory kernels, TILE_WIDTH 4, 8, 16, 32 at 4096, "
            "time including transfers",
    source="report 004, results tables",
    timed="wall",
    inputs="004",
    points=tile_width_points,
    plot=PlotSpec(kind="line", xlabel="TILE_WIDTH", logx=True),
    reading="""
The global-memory kernel computes one element of C per thread in TILE_WIDTH x TILE_WIDTH
blocks: `naive` with a TILE_WIDTH x TILE_WIDTH work-group. The shared-memory kernel
stages TILE_WIDTH x TILE_WIDTH tiles of A and B: `local` with a TILE_WIDTH x TILE_WIDTH
work-group, tile_k = TILE_WIDTH, one element per work-item. The report's clock starts
before A, B and C are copied to the GPU and stops after C is copied back, so the time
here is the whole call's wall time: uploads, kernel and download (portgemm does not
upload C). The operands are the lab's closed forms for a_ij and b_ij (i, j from 0), not
random numbers. --quick runs 1024, where the report has no numbers.
""",
)

EXPERIMENTS = (TILE_WIDTH,)
