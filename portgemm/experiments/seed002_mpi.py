"""Report 002's MPI experiments (its section 2.2): point-to-point against collective
communication and the 1-D against the 2-D partition, over process counts, run as jobs of
``python -m portgemm.distributed`` under ``mpiexec`` (the place "mpi", mpijob.py).

The report's results are a figure (its figure 15) and two sentences, given in words.
"""

from __future__ import annotations

from . import mpijob
from .measure import register_place
from .spec import Experiment, Mode, PlotSpec, Point, pick

PARTITIONS = (("p2p: point-to-point, 1-D rows", "p2p"),
              ("rows: collective, 1-D rows", "rows"),
              ("2d: collective, 2-D blocks", "2d"))

_NAMES = [name for _, name in PARTITIONS]
register_place("mpi", mpijob.runner(_NAMES), self_contained=True, calls=mpijob.calls(_NAMES))

# The report's local product: "矩阵乘法采用朴素的矩阵乘法" (the naive i-j-k loop, its
# sequential_matmul) on doubles (MPI_DOUBLE), on one core a rank.
DTYPE = "float64"
LOCAL = {"backend": "host", "variant": "serial-ijk", "dtype": DTYPE}


def mpi_points(mode: Mode) -> list[Point]:
    sizes = pick(mode, full=(256, 512, 1024, 2048), quick=(256, 512, 768), tiny=(64,))
    ranks = pick(mode, full=(1, 2, 4), quick=(1, 2, 4), tiny=(1, 2))
    reps = pick(mode, full=5, quick=2, tiny=1)
    return [Point(label, p, partition, (n, n, n), {"ranks": p, "reps": reps, **LOCAL},
                  on="mpi", panel=f"N={n}")
            for n in sizes for p in ranks for label, partition in PARTITIONS]


MPI = Experiment(
    name="002-mpi",
    summary="MPI point-to-point vs collective, 1-D rows vs 2-D blocks, over 1, 2, 4 "
            "processes, each rank's naive serial loop in double, N = 256..2048",
    source="report 002, section 2.2 (figure 15)",
    timed="wall",
    points=mpi_points,
    plot=PlotSpec(kind="line", xlabel="MPI processes", logx=True,
                  extra_lines=(("comm_ms", "comm ms (dash-dotted, each series' colour)"),)),
    extra_columns=(("comm ms", "comm_ms", ".3g"), ("compute ms", "compute_ms", ".3g"),
                   ("eff %", "efficiency_pct", ".0f")),
    time_words="wall ms: the slowest rank's time for the whole distributed call, from A and "
               "B on rank 0 to C on rank 0; comm ms = wall - the slowest rank's compute "
               "(messages, waiting for peers and the packing copies it did not hide); eff % "
               "= parallel efficiency, the same partition's compute ms at 1 process and the "
               "same size / (processes x wall), so at 1 process it is compute / wall and "
               "never above 100; the call with the median wall of the job's repetitions",
    dtype=DTYPE,
    reading="""
The report's three programs are `portgemm.distributed`'s partitions of seed 002
(docs/distributed.md describes them): `p2p`, its master/worker program with point-to-point
messages (rank 0 sends each worker its rows of A and all of B and gathers C's rows; it
computes nothing itself once there are workers); `rows`, its collective 1-D program (one
scatter of a packed struct of rows of A and all of B, one gather of C); and `2d`, its
collective 2-D program (row blocks of A and column blocks of B on a process grid, packed
the same way). Each process count and size is one job,
`mpiexec -n P python -m portgemm.distributed --partition p2p,rows,2d --sizes NxNxN
--reps R --no-one-rank --backend host --variant serial-ijk --dtype float64` (the exact
command of each point is in NAME.json): as in the report, each rank multiplies its blocks
with the naive i-j-k loop ("矩阵乘法采用朴素的矩阵乘法", its sequential_matmul) on one core,
in double (its MPI_DOUBLE messages). (Earlier runs of this experiment used the OpenCL
backend's `auto` kernel in float32 on all cores, which hides the report's second finding:
see docs/experiments.md.) The job warms each partition up, times R calls (5; --quick 2)
and checks C on rank 0 against float64: in full while M·N·K <= 2^31, beyond that along
four random directions (docs/distributed.md); its operands are uniform in [0, 1). The
report's sizes are not in its text (its figure speaks of large and small matrices):
square 256 to 2048 here (--quick 256, 512, 768), at 1, 2 and 4 processes; a job predicted
over the point budget (all its calls: 3 partitions x (1 + R), from the same partition's
time at the size before) is skipped, its prediction in NAME.md. One panel per size.
""",
    report_says="Figure 15 only; the text: distribution 2 (2-D blocks) is slightly faster "
                "than distribution 1 (rows), a small difference at its sizes; on large "
                "matrices, collective communication is far faster than point-to-point with "
                "few processes, while with many processes the two come close.",
)

EXPERIMENTS = (MPI,)
