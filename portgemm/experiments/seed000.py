"""Report 000 (USTC lab): CPU GEMM baseline, AVX and AVX-blocked; CUDA naive and
shared-memory tiled. Five experiments, one per table of its sections 1.3 and 2.3.

The report's numbers below are its tables, in ms (None where it printed N/A).
"""

from __future__ import annotations

from .spec import Experiment, Mode, PlotSpec, Point, pick


def _powers(first: int, last: int) -> list[int]:
    return [1 << e for e in range(first, last + 1)]


def _square(n: int) -> tuple[int, int, int]:
    return (n, n, n)


# --- 1.3.1: the three CPU algorithms over N (blockL = 64) ------------------------------

CPU_TABLE = {  # N: (baseline, AVX, AVX-blocked) in ms
    512: (250, 16, 31), 1024: (4219, 156, 188), 2048: (65078, 2172, 1734),
    4096: (None, 18109, 13703),
}
CPU_ALGORITHMS = (("baseline (ijk)", "serial-ijk", {}),
                  ("AVX (ikj)", "serial-ikj", {}),
                  ("AVX-blocked (blockL=64)", "serial-blocked", {"block": 64}))


def _cpu_sizes(mode: Mode) -> list[int]:
    return pick(mode, full=_powers(9, 12), quick=_powers(9, 11), tiny=[32, 64])


def _seed(table: dict, n: int, column: int) -> dict:
    """Point keywords for the report's cell: its number, or its N/A said as such."""
    if n not in table:
        return {}
    value = table[n][column]
    return {"seed": value} if value is not None else {"seed_note": "N/A in the report"}


def size_scaling_points(mode: Mode) -> list[Point]:
    return [Point(label, n, variant, _square(n), params, on="host", **_seed(CPU_TABLE, n, i))
            for n in _cpu_sizes(mode)
            for i, (label, variant, params) in enumerate(CPU_ALGORITHMS)]


SIZE_SCALING = Experiment(
    name="000-size-scaling",
    summary="CPU baseline / AVX / AVX-blocked (blockL 64) over N = 2^9..2^12, single thread",
    source="report 000, section 1.3.1",
    timed="wall",
    points=size_scaling_points,
    plot=PlotSpec(kind="line", xlabel="N", logx=True),
    reading="""
The report's three single-threaded C functions map onto portgemm's serial host variants:
its baseline is the i-j-k triple loop (`serial-ijk`); its "AVX" function broadcasts one
element of A and sweeps a row of B into a row of C with fused multiply-adds, which is the
i-k-j order (`serial-ikj`, whose unit-stride inner loop numba vectorises to the widest
SIMD the CPU has, AVX-512 here, not the report's 8-lane AVX); its "AVX-blocked" function
tiles i, j and k by blockL = 64 with the same inner loop (`serial-blocked`, block = 64).
Times are the call's wall time (the report timed each function). The report's N/A (the
baseline at 4096, which it did not run) stays empty. --quick stops at 2^11.
""",
)


# --- 1.3.2: blockL at N = 2048 --------------------------------------------------------

BLOCKL_TABLE = {8: 3141, 16: 2172, 32: 1750, 64: 1734, 128: 1531, 256: 1484, 512: 1297,
                1024: 2063, 2048: 2172}


def blockl_points(mode: Mode) -> list[Point]:
    n = pick(mode, full=2048, quick=1024, tiny=64)
    blocks = [b for b in _powers(3, 11) if b <= n]
    return [Point("AVX-blocked", block, "serial-blocked", _square(n), {"block": block},
                  on="host", seed=BLOCKL_TABLE[block] if n == 2048 else None)
            for block in blocks]


BLOCKL_SWEEP = Experiment(
    name="000-blockl-sweep",
    summary="AVX-blocked CPU GEMM, blockL = 8..2048 at N = 2048 (report's best: 512)",
    source="report 000, section 1.3.2",
    timed="wall",
    points=blockl_points,
    plot=PlotSpec(kind="line", xlabel="blockL", logx=True),
    reading="""
The blocked i-k-j loop (`serial-blocked`) with square blocks of blockL in i, j and k, as
the report's `gemm_avx_block`, single-threaded, timed as the call's wall time. The report
ran N = 2048; --quick runs N = 1024 (blockL up to 1024), where the report has no numbers.
""",
    report_says="Fastest at blockL = 512 (1297 ms), which the report links to its 6 MiB L3 "
                "cache holding six 1 MiB blocks; small blocks pay loop overhead and large "
                "ones lose locality.",
)


# --- 2.3.1: device kernels over N (blocksize = blockL = 32), clock() around the call ---

DEVICE_TABLE = {  # N: (CPU baseline, GPU naive, GPU blocked) in ms
    512: (475, 248, 3), 1024: (3781, 248, 8), 2048: (49729, 346, 25),
    4096: (None, 1333, 124), 8192: (None, 7593, 741), 16384: (None, 57881, 5713),
}
NAIVE_32 = {"wg_y": 1, "wg_x": 32}
LOCAL_32 = {"wg_y": 32, "wg_x": 32, "tile_y": 1, "tile_x": 1, "tile_k": 32}


def device_scaling_points(mode: Mode) -> list[Point]:
    sizes = pick(mode, full=_powers(9, 14), quick=_powers(9, 11), tiny=[32, 64])
    series = (("CPU baseline (ijk)", "serial-ijk", {}, "host"),
              ("naive", "naive", NAIVE_32, "device"),
              ("tiled (local memory)", "local", LOCAL_32, "device"))
    return [Point(label, n, variant, _square(n), params, on=on, **_seed(DEVICE_TABLE, n, i))
            for n in sizes for i, (label, variant, params, on) in enumerate(series)]


DEVICE_SIZE_SCALING = Experiment(
    name="000-device-size-scaling",
    summary="CPU baseline vs naive and local-memory tiled device kernels (blocks of 32) "
            "over N = 2^9..2^14, whole-call time",
    source="report 000, section 2.3.1",
    timed="wall",
    points=device_scaling_points,
    plot=PlotSpec(kind="line", xlabel="N", logx=True),
    reading="""
"blocksize = blockL = 2^5": the naive CUDA kernel runs one thread per element of C in 1-D
blocks of 32 threads along a row of C, so `naive` with 1 x 32 work-groups; the blocked
kernel stages blockL x blockL tiles of A and B in shared memory with a blockL x blockL
thread block, so `local` with a 32 x 32 work-group, one element per work-item and
tile_k = 32. For fairness with the CPU the report timed everything with clock() around
the whole computation, so every series here is the wall time of the whole call
(transfers included). The CPU baseline is the i-j-k loop (`serial-ijk`) on the host.
The report printed N/A for the CPU beyond 2^11; points this device cannot finish in the
point budget are skipped by the rule below. --quick stops at 2^11.
""",
)


# --- 2.3.2: the naive kernel's block size at N = 8192 ----------------------------------

WORKGROUP_TABLE = {2: 65443, 4: 34350, 8: 19655, 16: 13560, 32: 6919, 64: 5776, 128: 5652,
                   256: 5651, 512: 5625, 1024: 5505}


def workgroup_points(mode: Mode) -> list[Point]:
    n = pick(mode, full=8192, quick=1024, tiny=64)
    sizes = pick(mode, full=_powers(1, 10), quick=_powers(1, 10), tiny=[2, 8, 32])
    return [Point("naive", s, "naive", _square(n), {"wg_y": 1, "wg_x": s},
                  seed=WORKGROUP_TABLE[s] if n == 8192 else None)
            for s in sizes]


WORKGROUP_SWEEP = Experiment(
    name="000-workgroup-sweep",
    summary="naive kernel, work-group (block) size 2..1024 at N = 8192, kernel time",
    source="report 000, section 2.3.2",
    timed="kernel",
    points=workgroup_points,
    plot=PlotSpec(kind="line", xlabel="work-group size (1 x s)", logx=True),
    reading="""
The report's naive kernel computes one element of C per thread from a 1-D thread index,
so a block of s threads covers s consecutive elements of a row of C: `naive` with 1 x s
work-groups. Its "gridsize" column (2^13 / s) does not multiply out to N^2 threads and is
not reproduced; every element of C still gets one work-item. Timed with nvprof there, so
the kernel's event time here. Work-groups beyond the device's limit are skipped with the
limit named (the report saw all-zero results above 1024 on its GPU). --quick runs
N = 1024, where the report has no numbers.
""",
    report_says="Time falls monotonically as the block grows, steeply up to 32-64 threads, "
                "then flattens (5.5-5.8 s from 64 to 1024).",
)


# --- 2.3.3: the tiled kernel's blockL at N = 8192 ---------------------------------------

TILED_TABLE = {2: 20123, 4: 3802, 8: 1287, 16: 644, 32: 500}


def tiled_block_points(mode: Mode) -> list[Point]:
    n = pick(mode, full=8192, quick=1024, tiny=64)
    blocks = pick(mode, full=_powers(1, 5), quick=_powers(1, 5), tiny=[2, 4, 8])
    return [Point("tiled (local memory)", L, "local", _square(n),
                  {"wg_y": L, "wg_x": L, "tile_y": 1, "tile_x": 1, "tile_k": L},
                  seed=TILED_TABLE[L] if n == 8192 else None)
            for L in blocks]


TILED_BLOCK_SWEEP = Experiment(
    name="000-tiled-block-sweep",
    summary="local-memory tiled kernel, blockL = 2..32 (blockL x blockL work-items) at "
            "N = 8192, kernel time",
    source="report 000, section 2.3.3",
    timed="kernel",
    points=tiled_block_points,
    plot=PlotSpec(kind="line", xlabel="blockL", logx=True),
    reading="""
blocksize = blockL: a blockL x blockL work-group stages blockL x blockL tiles of A and B
in local memory, one element of C per work-item: `local` with wg = blockL x blockL,
tile_k = blockL, tile 1 x 1. Timed with nvprof there, so the kernel's event time here.
--quick runs N = 1024, where the report has no numbers.
""",
    report_says="Time falls monotonically with blockL, from 20.1 s at 2 to 0.50 s at 32; "
                "larger blocks failed on its GPU (too many threads or too much shared "
                "memory).",
)

EXPERIMENTS = (SIZE_SCALING, BLOCKL_SWEEP, DEVICE_SIZE_SCALING, WORKGROUP_SWEEP,
               TILED_BLOCK_SWEEP)
