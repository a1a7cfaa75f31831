"""Report 002 (SYSU course report): the serial ladder, OpenMP schedules and chunks, and the
CUDA ladder up to double buffering as % of cuBLAS. Its MPI experiments come with
portgemm.distributed, as their own module (see registry.py).

Only the CUDA ladder has numbers in the report's text (its table 1); the serial and
OpenMP results are figures, described in words here.
"""

from __future__ import annotations

import os

from .spec import Experiment, Mode, PlotSpec, Point, pick

SIZES = (128, 256, 512, 1024, 2048)  # the OpenMP figure's sizes; the serial figure's too
DTYPE = "float64"  # the report's serial and OpenMP code multiplies doubles


def _sizes(mode: Mode) -> list[int]:
    return list(pick(mode, full=SIZES, quick=SIZES[:4], tiny=(32, 64)))


def _square(n: int) -> tuple[int, int, int]:
    return (n, n, n)


# --- serial ladder --------------------------------------------------------------------

RESTRICT = "no counterpart: C's __restrict__ has no Python spelling"
SERIAL_RUNGS = (("ijk", "serial-ijk", {}, ""),
                ("ikj (reordered)", "serial-ikj", {}, ""),
                ("unrolled x4", "serial-unroll4", {}, ""),
                ("restrict", "serial-ijk", {}, RESTRICT),
                ("divide & conquer", "serial-divide_conquer", {"cutoff": 64}, ""),
                ("Strassen", "serial-strassen", {"cutoff": 128}, ""))


def _recursing(params: dict, n: int) -> dict:
    """A recursive rung's cutoff, at most N / 2: at N <= its cutoff the recursion would
    not start and the bar would be the loop kernel alone (Strassen's, the blocked loop)."""
    if "cutoff" not in params:
        return params
    return {**params, "cutoff": max(1, min(params["cutoff"], n // 2))}


def serial_points(mode: Mode) -> list[Point]:
    return [Point(f"N={n}", rung, variant, _square(n), _recursing(params, n), on="host",
                  unavailable=why)
            for n in _sizes(mode) for rung, variant, params, why in SERIAL_RUNGS]


SERIAL_LADDER = Experiment(
    name="002-serial-ladder",
    summary="serial ijk -> ikj -> unrolled -> restrict -> divide & conquer -> Strassen, "
            "N = 128..2048",
    source="report 002, section 2.1 (figure 2)",
    timed="wall",
    points=serial_points,
    plot=PlotSpec(kind="bars", xlabel="algorithm"),
    dtype=DTYPE,
    reading="""
Each rung is one of portgemm's serial host variants, single-threaded, in double as the
report's code, and timed as the call's wall time: the naive i-j-k loop (`serial-ijk`),
the reordered i-k-j loop
(`serial-ikj`), the unrolled loop (`serial-unroll4`: i-k-j with four rank-1 updates per
sweep of a row of C; the report unrolls the i-j-k dot product into four partial sums
instead), divide and conquer (`serial-divide_conquer`) and Strassen (`serial-strassen`).
The report recurses down to 1 x 1; portgemm stops at 64 (divide and conquer) and 128
(Strassen), or at N / 2 where that is smaller (so at N = 128 both recurse once rather
than not at all), and finishes with its loop kernels (i-k-j; Strassen's, the blocked
loop), which is what makes the recursion affordable in Python. The report's
`__restrict__` rung has no counterpart and is shown as such (nor do numba's loops assume
distinct arrays: its `noalias` compiler flag is off and no `njit` option; LLVM checks the
arrays for overlap at run time before its vectorised loop). The figure's sizes are not given in the text; the report's OpenMP figure uses
128..2048, taken here too. Bars: one group per algorithm, one bar per size.
""",
    report_says="Figure 2 only; the text says the measurements agree with its analysis: "
                "reordering removes the column walk's cache misses, unrolling and "
                "restrict help the compiler, divide and conquer keeps blocks in cache, and "
                "Strassen pays off only for very large matrices.",
)


# --- OpenMP: schedule x chunk, schedule x threads -------------------------------------

BLOCK = 16  # one loop index = a 16-row x 16-K block pair (see OMP_READING)
# the report's loop body (see OMP_READING), one block pair of it at a time
OMP_PARAMS = {"block": BLOCK, "body": "ikj"}
OMP_READING = f"""
The report parallelises the i-k-j loop `C_local[i*p+j] += A[i*n+k]*B[k*p+j]` with
`collapse(2)` over (i, k) under `schedule(runtime)`, on doubles, each thread accumulating
into a private C that is added into C at the end. That is portgemm's `threads-collapse`
(host backend) with `body="ikj"`: the collapsed (row block, K block) pairs are dealt out
by `parallel_for` with OpenMP's schedules, each runs the same i-k-j loop (serial-ikj's
kernel) on A, B and its thread's private C, and the private Cs are summed. One loop index
covers a block of {BLOCK} rows x {BLOCK} values of K (the report's index is a single
(i, k)): a Python call per single index would cost more than its work. So a chunk counts
blocks, and at N = 128 there are only 64 of them. Threads are Python threads running
numba code without the GIL; the report's `auto` maps to static in GCC and here too. Timed
as the call's wall time. (`threads-collapse`'s default body, `tile`, packs B and runs a
register-tile microkernel, 3-4 times faster a thread: not the report's loop, and runs
before 2026-11-28 used it.)
"""


def _threads() -> list[int]:
    """Powers of two up to the CPU count, then twice the count (oversubscribed), as the
    report swept threads on a 28-thread CPU."""
    cores = os.cpu_count() or 1
    found = [1 << e for e in range(cores.bit_length()) if 1 << e <= cores]
    return found + [2 * cores] if 2 * cores not in found else found


def omp_chunk_points(mode: Mode) -> list[Point]:
    chunks = pick(mode, full=(1, 4, 16, 64), quick=(1, 4, 16, 64), tiny=(1, 4))
    return [Point(f"N={n}", chunk, "threads-collapse", _square(n),
                  {"schedule": schedule, "chunk": chunk, **OMP_PARAMS}, on="host",
                  panel=schedule)
            for schedule in ("static", "dynamic") for n in _sizes(mode) for chunk in chunks]


OMP_CHUNK = Experiment(
    name="002-omp-chunk",
    summary="OpenMP-style static / dynamic schedules, chunk 1..64 (all cores), "
            "N = 128..2048",
    source="report 002, section 2.3.3 (figures 21, 22)",
    timed="wall",
    dtype=DTYPE,
    points=omp_chunk_points,
    plot=PlotSpec(kind="line", xlabel="chunk (blocks)", logx=True),
    reading=OMP_READING + "\nThreads: all the CPU's cores. One panel per schedule.\n",
    report_says="Figures 21 and 22 only; the text: chunk size has essentially no effect, "
                "as expected when every iteration costs the same.",
)


def omp_threads_points(mode: Mode) -> list[Point]:
    return [Point(f"N={n}", threads, "threads-collapse", _square(n),
                  {"schedule": schedule, "num_threads": threads, **OMP_PARAMS}, on="host",
                  panel=schedule)
            for schedule in ("static", "dynamic", "guided", "auto")
            for threads in _threads() for n in _sizes(mode)]


OMP_THREADS = Experiment(
    name="002-omp-threads",
    summary="OpenMP-style schedules static / dynamic / guided / auto x thread count, "
            "N = 128..2048",
    source="report 002, section 2.3.3 (figure 23)",
    timed="wall",
    dtype=DTYPE,
    points=omp_threads_points,
    plot=PlotSpec(kind="bars", xlabel="threads"),
    reading=OMP_READING + """
Threads: powers of two up to the CPU count, then twice the count (the report's machine
had 28 hardware threads; this one may have far fewer). Default chunk. As in the report's
figure 23: one group per thread count, one bar per size, log time axis; one panel per
schedule.
""",
    report_says="Figure 23 only; the text: time falls in inverse proportion to the thread "
                "count (the bar tops form a line on the log scale), the schedules hardly "
                "differ, and static is slightly slower than dynamic at many threads.",
)


# --- the CUDA ladder as xgemm knobs, % of the vendor library at 2048 -------------------

LADDER_TABLE = {  # rung: {sn: (seconds, TFLOPS, % of cuBLAS)} from the report's table 1
    "naive": {None: (0.009086, 1.890818, 11.26)},
    "tiled": {8: (0.001568, 10.956499, 65.25), 16: (0.001625, 10.573978, 62.97)},
    "vectorised": {8: (0.001234, 13.921037, 82.90), 16: (0.001249, 13.750360, 81.88)},
    "conflict-free": {8: (0.001097, 15.658899, 93.25), 16: (0.001043, 16.466607, 98.06)},
    "double-buffered": {8: (0.000980, 17.538562, 104.44), 16: (0.000943, 18.214506, 108.47)},
}
CUBLAS_2048 = (0.001023, 16.792684)


def ladder_params(sn: int) -> list[tuple[str, dict]]:
    """Each rung adds one knob to the one before (see LADDER_READING)."""
    tiled = {"MWG": 128, "NWG": 128, "KWG": sn, "MDIMC": 16, "NDIMC": 16, "VW": 1,
             "VWM": 1, "VWN": 1, "PAD": 0, "DOUBLE_BUFFER": 0, "KUNROLL": sn, "WARPN": 16}
    vectorised = {**tiled, "VW": 4}
    conflict_free = {**vectorised, "VWM": 4, "PAD": 1}
    double_buffered = {**conflict_free, "DOUBLE_BUFFER": 1}
    return [("tiled", tiled), ("vectorised", vectorised), ("conflict-free", conflict_free),
            ("double-buffered", double_buffered)]


def _seed_note(entry) -> str:
    seconds, tflops, _ = entry
    return f"{seconds * 1e3:.3f} ms, {tflops:.2f} TFLOPS"


def ladder_points(mode: Mode) -> list[Point]:
    n = pick(mode, full=2048, quick=1024, tiny=64)
    at_2048 = n == 2048
    points = [Point("vendor", "vendor", "vendor", _square(n), on="vendor",
                    seed=100.0 if at_2048 else None,
                    seed_note=_seed_note((*CUBLAS_2048, 100)) + " (cuBLAS)" if at_2048 else ""),
              Point("naive", "naive", "naive", _square(n), {"wg_y": 16, "wg_x": 16},
                    seed=LADDER_TABLE["naive"][None][2] if at_2048 else None,
                    seed_note=_seed_note(LADDER_TABLE["naive"][None]) if at_2048 else "")]
    for rung in ("tiled", "vectorised", "conflict-free", "double-buffered"):
        for sn in (8, 16):
            params = dict(ladder_params(sn))[rung]
            entry = LADDER_TABLE[rung][sn]
            points.append(Point(f"sn={sn}", rung, "xgemm", _square(n), params,
                                seed=entry[2] if at_2048 else None,
                                seed_note=_seed_note(entry) if at_2048 else ""))
    return points


DEVICE_LADDER = Experiment(
    name="002-device-ladder",
    summary="naive -> tiled -> vectorised -> conflict-free -> double-buffered (xgemm knobs, "
            "sn = 8, 16) as % of the vendor BLAS at 2048",
    source="report 002, section 2.4 (table 1)",
    timed="kernel",
    points=ladder_points,
    plot=PlotSpec(kind="bars", xlabel="rung", y="pct_of_vendor", logy=False),
    relative_to_vendor=True,
    seed_unit="%",
    reading="""
The report's kernels at M = N = K = 2048 with 16 x 16 thread blocks, built from portgemm's
own variants. naive: `naive` with 16 x 16 work-groups. The blocked kernels use the
report's sm = sk = 128, tx = ty = 8 and sn = 8 or 16, i.e. `xgemm` with MWG = NWG = 128,
MDIMC = NDIMC = 16 (8 x 8 elements of C per work-item), KWG = sn, the slab unrolled
(KUNROLL = sn), and then, one knob per rung: tiled (scalar loads, VW = 1); vectorised
(float4 global loads, VW = 4); conflict-free (A stored transposed, k-major, in local
memory and read as 4-vectors, VWM = 4, plus a padded local row, PAD = 1: the report
transposes A into shared memory to avoid bank conflicts); double-buffered
(DOUBLE_BUFFER = 1). % of the vendor library timed in the same run on the same operands:
cuBLAS (CUDA events, TF32 off) on an NVIDIA GPU, else numpy's BLAS (its wall time; on a
CPU that is the library's call); ours is the kernel's event time, as the report's.
--quick runs 1024, where the report has no numbers.
""",
)

EXPERIMENTS = (SERIAL_LADDER, OMP_CHUNK, OMP_THREADS, DEVICE_LADDER)
