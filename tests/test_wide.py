"""The skinny class: C of few rows (the wide kernel, work-items along N) or few columns
(tallskinny in tiles), its routing, and the wide kernel on awkward shapes and layouts."""

from __future__ import annotations

from math import ceil, log2

import numpy as np
import pytest

import portgemm
from portgemm.auto import choose
from portgemm.auto.compiler import compiler_kind
from portgemm.auto.shapes import SKINNY_LIMITS, class_order, classify
from portgemm.auto.tallskinny import (CACHE_SHARE, DEFAULT_CACHE, ROW_ITEMS_PER_CORE,
                                      WIDE_ITEMS_PER_CORE, WIDE_RUN, cache_ranges,
                                      tallskinny_params)
from portgemm.auto.traits import traits
from portgemm.auto.wide import MAX_TERMS, wide_params
from portgemm.families import get_variant

from conftest import assert_close
from test_tallskinny import gpu, operands

# a row vector, prime sides, N not a multiple of a group's columns, K below a group's
# width and not a multiple of KU, C's rows past a work-item's tile
AWKWARD = [(1, 1, 1), (1, 1000, 1), (1, 997, 1031), (3, 1001, 777), (2, 129, 5),
           (11, 513, 67), (16, 40, 2), (5, 2048, 4099)]


@pytest.mark.parametrize("params, order", [
    ({"BS": 16, "tile_y": 1, "tile_x": 64, "KU": 4, "BY_COLUMN": 1, "KSPLIT": 8}, "CC"),  # CPU
    ({"BS": 256, "tile_y": 16, "tile_x": 2, "KU": 8, "KSPLIT": 32}, "CC"),  # the GPU's
    ({"BS": 48, "tile_y": 4, "tile_x": 3, "KU": 8, "KSPLIT": 3}, "FC"),    # steps left over
    ({"BS": 32, "tile_y": 3, "tile_x": 5, "KU": 4, "BY_COLUMN": 1, "KSPLIT": 5}, "FF"),
    ({"BS": 64, "tile_y": 2, "tile_x": 2, "KU": 2, "KSPLIT": 1}, "CF"),    # whole K, into C
    ({"BS": 16, "tile_y": 8, "tile_x": 16, "KU": 1, "KSPLIT": 300}, "FF"),  # layers past K
    ({"BS": 256, "tile_y": 11, "tile_x": 2, "KU": 4, "KSPLIT": 512}, "FC"),  # the H100's 11 rows
])
def test_wide_any_shape_and_layout(device, params, order):
    for m, n, k in AWKWARD:
        a, b = operands(m, n, k, order=order)
        assert_close(portgemm.gemm(a, b, device=device, variant="wide", params=params,
                                   poison=np.nan).c, a, b)


def test_wide_is_deterministic(device):
    """The layers' partial products are summed in order: bit for bit the same C."""
    a, b = operands(3, 1500, 20000)
    params = {"BS": 32, "tile_y": 2, "tile_x": 4, "KU": 2, "KSPLIT": 16}
    first = portgemm.gemm(a, b, device=device, variant="wide", params=params).c
    for _ in range(3):
        again = portgemm.gemm(a, b, device=device, variant="wide", params=params,
                              poison=np.nan).c
        assert np.array_equal(first, again)


def test_wide_float64(device):
    if not device.has_fp64:
        pytest.skip("no float64")
    a, b = operands(2, 700, 5001, dtype=np.float64)
    assert_close(portgemm.gemm(a, b, device=device, variant="wide").c, a, b)


def test_wide_plan():
    impl = get_variant("wide")
    params = impl.resolve({"BS": 64, "tile_y": 8, "tile_x": 4, "KSPLIT": 4})
    plan = impl.plan(3, 1000, 500, params)
    # tile_y cut to C's 3 rows; 4 groups of 256 columns; 4 layers summed by reduce.cl
    assert plan.ndrange.global_range.sizes == (4, 1, 256)
    assert plan.ndrange.local_range.sizes == (1, 1, 64)
    assert dict(plan.defines)["TM"] == 3 and plan.workspace == (4 * 3 * 1000,)
    assert [step.kernel for step in plan.steps] == ["gemm", "sum_slices"]
    whole = impl.plan(3, 1000, 2, impl.resolve({**params, "KSPLIT": 8}))  # no layer past K
    assert whole.ndrange.global_range.sizes[0] == 2
    assert len(impl.plan(3, 1000, 500, impl.resolve({"KSPLIT": 1})).steps) == 1
    with pytest.raises(portgemm.ParameterError, match="BY_COLUMN must each be 0 or 1"):
        impl.resolve({"BY_COLUMN": 2})


# --- the class and the routing -----------------------------------------------------------

@pytest.mark.parametrize("shape, expected, on_a_cpu", [
    ((1, 4096, 4096), "skinny", "skinny"), ((9, 4096, 4096), "skinny", "skinny"),
    ((10, 4096, 4096), "skinny", "deep-k"), ((16, 4096, 4096), "skinny", "deep-k"),
    ((32, 4096, 4096), "skinny", "deep-k"), ((33, 4096, 4096), "deep-k", "deep-k"),
    ((4096, 1, 4096), "skinny", "skinny"), ((4096, 8, 10), "skinny", "skinny"),
    ((4096, 8, 4096), "skinny", "skinny"), ((4096, 16, 4096), "skinny", "skinny"),
    ((4096, 17, 4096), "skinny", "deep-k"),
    ((4096, 24, 4096), "skinny", "deep-k"), ((4096, 25, 4096), "deep-k", "deep-k"),
    ((1, 511, 1000), "medium", "skinny"), ((16, 31, 1000), "medium", "medium"),
    ((40, 16, 64), "small", "skinny"), ((8, 8, 1 << 22), "tall-skinny", "tall-skinny"),
    ((1, 200, 1 << 20), "tall-skinny", "tall-skinny"),
])
def test_skinny_class(shape, expected, on_a_cpu):
    """A GPU's limits (32 rows, 24 columns, the long side from 512) by default, Intel's
    runtime's (9 rows, 16 columns, from 32)."""
    name, why = classify(*shape)
    assert name == expected and why
    assert classify(*shape, skinny=SKINNY_LIMITS["work-item-vectorising"])[0] == on_a_cpu
    if expected == "skinny":
        assert class_order(*shape) == ["skinny"]


def test_skinny_routes_on_a_gpu():
    device = gpu()
    row = choose(device, 1, 4096, 4096, sources=[])
    assert row.variant == "wide" and "shape class skinny" in row.reason
    # half of 132 x 2048 work-items over 8 blocks of 512 columns: 66 groups of 256 a
    # block, the nearest power of two 64 layers
    assert {key: row.params[key] for key in ("BS", "tile_y", "tile_x", "KU", "KSPLIT")} == {
        "BS": 256, "tile_y": 1, "tile_x": 2, "KU": 8, "KSPLIT": 64}
    assert row.params["BY_COLUMN"] == 0
    # C of one block of columns over a deep K: the 528 layers half the device asks for,
    # as a power of two 512 (256 ran 1.09-1.28x slower on the H100); at K = 4096, 256
    assert choose(device, 1, 300, 498338, sources=[]).params["KSPLIT"] == 512
    assert choose(device, 3, 500, 65536, sources=[]).params["KSPLIT"] == 512
    assert wide_params(device, 1, 500, 4096)[0]["KSPLIT"] == 256
    # (where auto takes tallskinny's one launch instead: its tiles read 8 MB,
    # shapes.GPU_SHORT_READS)
    assert choose(device, 1, 500, 4096, sources=[]).variant == "tallskinny"
    # all rows, K split for accuracy (from 12 rows Hopper takes mma's 16 x 128 tile)
    rows = choose(device, 11, 8192, 100_000, sources=[])
    assert rows.params["tile_y"] == 11 and rows.params["KSPLIT"] >= 100_000 / MAX_TERMS
    column = choose(device, 4096, 1, 4096, sources=[])
    assert column.variant == "tallskinny" and "512 tiles of C" not in column.reason
    # C of 32 rows in two blocks of 16 a work-item (on Hopper auto takes mma's 32 x 128
    # tile for it: test_shipped_database)
    assert wide_params(device, 32, 8192, 8192)[0]["tile_y"] == 16
    assert choose(device, 32, 8192, 8192, sources=[]).variant == "mma"
    # a tall C of 9-24 columns: tiles of 8 rows and all its columns, groups of 64, four
    # steps at once where the registers hold them (two at 24 columns)
    # (bench/results/2026-11-22-h200-tall)
    for n, steps in ((12, 4), (16, 4), (24, 2), (9, 4)):
        params = tallskinny_params(device, 4096, n, 4096)[0]
        assert (params["tile_y"], params["tile_x"], params["BS"], params["KU"]) == (
            8, n, 64, steps)
        assert choose(device, 4096, n, 4096, sources=[]).variant == "tallskinny"
    assert choose(device, 4096, 25, 4096, sources=[]).variant != "tallskinny"
    # 8 and fewer columns: the model's tile and steps, in groups no bigger than lets all
    # of C's tiles run in one wave (132 x 546 work-items of 120 registers over 1024
    # tiles of 8 x 8: 70 a tile; over 512: 141), at least 64; so many tiles take groups
    # for 4 rounds of those the device holds (MANY_TILE_ROUNDS: 8000 x 8 x 65536 level,
    # 2500 x 8 x 20000 1.11x on the H100, bench/results/2026-11-27-h100-shallow)
    eight = tallskinny_params(device, 8192, 8, 8192)[0]
    assert (eight["tile_y"], eight["tile_x"], eight["KU"], eight["BS"]) == (8, 8, 2, 64)
    assert eight["GS"] == 5  # ceil(4 x 132 x 8 groups a unit / 1024 tiles)
    assert tallskinny_params(device, 4096, 8, 4096)[0]["BS"] == 128
    assert tallskinny_params(device, 50000, 8, 1024)[0]["BS"] == 64
    # where one wave holds more than the registers' group, that group stands
    assert tallskinny_params(device, 4096, 1, 4096)[0]["BS"] == 256
    # a C whose tiles overfill one wave (the variant named for any shape): groups of 64
    assert tallskinny_params(device, 4096, 4096, 1)[0]["BS"] == 64


def test_skinny_routes_on_a_cpu(device):
    if device.type != "cpu":
        pytest.skip("the CPU's rules")
    if compiler_kind(device) == "code-vectorising":  # PoCL: by size, vec's panels won there
        row = choose(device, 1, 4096, 4096, sources=[])
        assert row.variant not in ("wide", "tallskinny")
        assert "not skinny on a code-vectorising compiler" in row.reason
        return
    row = choose(device, 1, 4096, 4096, sources=[])
    wider = choose(device, 32, 4096, 4096, sources=[])  # skinny on a GPU, not here
    assert wider.variant != "wide" and "at most 9 rows or 16 columns" in wider.reason
    # 10-16 rows: panel, 1.06-2.19x faster than tallskinny on a Xeon
    # (bench/results/2026-11-26-cpu-xeon207-wide-rows), over a long K as well
    for m, n, k in ((16, 4096, 4096), (10, 520, 4097), (16, 2048, 8192)):
        assert choose(device, m, n, k, sources=[]).variant == "panel", (m, n, k)
    # a wide C: tallskinny's rows as vectors, each row of a tile 16 vectors of 16 (256 of
    # 4096 columns: 16 tiles), groups along K in runs of at most 512 steps, and at least
    # 16 work-items a core
    assert row.variant == "tallskinny" and "shape class skinny" in row.reason
    groups = max(ceil(device.compute_units * WIDE_ITEMS_PER_CORE / 16), 4096 // WIDE_RUN)
    assert {key: row.params[key] for key in ("ROWVEC", "BS", "tile_y", "tile_x", "GS")} == {
        "ROWVEC": 1, "BS": 1, "tile_y": 1, "tile_x": 256, "GS": groups}
    # 8 rows: a row-major B in one tile of 8 x 48 (each row of B read in runs of 3
    # vectors), a column-major one as well (B read once along K, 28 sums at most)
    eight = choose(device, 8, 4096, 4096, sources=[]).params
    along_k = choose(device, 8, 4096, 4096, sources=[], layout="CF").params
    assert (eight["tile_y"], eight["tile_x"]) == (8, 48)
    assert along_k["tile_y"] == 8
    # the wide kernel's own CPU parameters, where a user names it
    named = wide_params(device, 1, 4096, 4096)[0]
    assert named["BS"] <= 16 and named["KU"] == 4 and named["BY_COLUMN"] == 1
    assert named["tile_y"] * named["tile_x"] <= 128 and named["KSPLIT"] == 8
    # a tall C: tiles of at most 8 rows of A, the groups shared among the tiles
    column, _ = tallskinny_params(device, 4096, 1, 4096)
    assert (column["tile_y"], column["tile_x"], column["GS"]) == (8, 1, 1)
    # the tall-skinny class: tiles of at most 8 rows, each row one vector (ROWVEC), in
    # groups of one work-item: 64 a core over the two tiles, or as many as share bands
    # of 1 MB of B's rows (2^22 x 9 floats: 144), or as many ranges of K as bring B's
    # slice, which both tiles read, within half the core's L2 (256 where it is 2 MB)
    tall, _ = tallskinny_params(device, 9, 9, 1 << 22)
    ranges, _ = cache_ranges(traits(device), 9, 9, 1 << 22, (8, 9))
    assert ranges == 1 << ceil(log2(9 * (1 << 22) * 4 * CACHE_SHARE / (traits(device).cache
                                                                       or DEFAULT_CACHE)))
    groups = max(ceil(device.compute_units * ROW_ITEMS_PER_CORE / 2), 144, ranges)
    assert (tall["tile_y"], tall["tile_x"], tall["GS"], tall["ROWVEC"]) == (8, 9, groups, 1)
    narrow = wide_params(device, 3, 5000, 100)[0]
    assert narrow["KSPLIT"] == 1 and narrow["tile_y"] == 3


def test_wide_float64_loads_fewer_steps_on_a_gpu():
    """A GPU work-item's 16 rows load 8 steps at once in float32, 2 in float64 (a double
    takes two registers: 8 spilled, 1.6x slower on the H100); one row keeps 8."""
    from test_tallskinny import gpu

    assert wide_params(gpu(), 16, 4096, 4096, 4)[0]["KU"] == 8
    assert wide_params(gpu(), 16, 4096, 4096, 8)[0]["KU"] == 2
    assert wide_params(gpu(), 8, 8192, 8192, 8)[0]["KU"] == 4
    assert wide_params(gpu(), 1, 8192, 8192, 8)[0]["KU"] == 8


@pytest.mark.parametrize("rows, steps", [(6, 8), (7, 8), (8, 4), (9, 8), (10, 8), (11, 4),
                                         (16, 8)])
def test_wide_float32_of_8_or_11_rows_loads_4_steps_on_a_gpu(rows, steps):
    """8 and 11 rows (ptxas's poor builds of 8 steps) ran 1.10-1.67x faster in 4 steps
    than in 8 on the H100, 6, 7, 9 and 10 rows 0.86-1.01x; 16 keep the H200's 8
    (bench/results/2026-11-27-h100-spread)."""
    from test_tallskinny import gpu

    assert wide_params(gpu(), rows, 8192, 16384, 4)[0]["KU"] == steps
    amd = gpu(vendor="Advanced Micro Devices, Inc.")  # no ptxas: the registers' rule alone
    assert wide_params(amd, rows, 8192, 16384, 4)[0]["KU"] == 8


def test_auto_runs_skinny_shapes(device):
    by_size = compiler_kind(device) == "code-vectorising"
    wide = "tallskinny" if device.type == "cpu" else "wide"  # rows as vectors on a CPU
    for (m, n, k), variant in [((1, 600, 3000), wide), ((700, 3, 1000), "tallskinny"),
                               ((9, 520, 4097), wide)]:
        a, b = operands(m, n, k)
        result = portgemm.gemm(a, b, device=device, poison=np.nan)
        assert (result.variant != variant) if by_size else (result.variant == variant)
        assert_close(result.c, a, b)
