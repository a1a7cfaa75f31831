"""Seed 001: the tall-skinny kernels (phvm, basicmm, tallskinny), split-K, the shape-aware
choice of ``auto``, and the paper's time-cost model against its own tables."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import portgemm
from portgemm.auto import choose, phvm
from portgemm.auto.compiler import compiler_kind
from portgemm.auto.shapes import class_order, classify, device_class
from portgemm.auto.splitk import ksplit
from portgemm.auto.tallskinny import (GPU_MIN_TERMS, MANY_TILES, MIN_TERMS, ROW_ITEMS_PER_CORE,
                                       gpu_group, item_registers, tallskinny_params,
                                       tile_for)
from portgemm.families import get_variant
from portgemm.runtime.device import Device

from conftest import assert_close

AWKWARD = [(1, 1, 1), (1, 7, 1000), (7, 1, 999), (3, 5, 17), (13, 11, 3001), (9, 9, 40),
           (2, 3, 100003), (17, 16, 5000)]


def operands(m, n, k, seed=0, dtype=np.float32, order="CC"):
    rng = np.random.default_rng([seed, m, n, k])
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    a = np.asfortranarray(a) if order[0] == "F" else a
    b = np.asfortranarray(b) if order[1] == "F" else b
    return a, b


# --- every new kernel on awkward shapes --------------------------------------------------

@pytest.mark.parametrize("params, order", [
    ({"GS": 3, "BS": 32, "tile_y": 8, "tile_x": 8}, "CC"),    # more accumulators than items
    ({"GS": 3, "BS": 32, "tile_y": 8, "tile_x": 8}, "FF"),
    ({"GS": 3, "BS": 32, "tile_y": 8, "tile_x": 8}, "CF"),
    ({"GS": 1, "BS": 1024, "tile_y": 2, "tile_x": 3}, "FC"),  # C cut into many tiles
    ({"GS": 64, "BS": 64, "tile_y": 16, "tile_x": 16}, "CC"),  # groups beyond K's work
    ({"GS": 5, "BS": 128, "tile_y": 1, "tile_x": 1}, "CF"),
    # the butterfly (through local memory here: the same arithmetic as the GPU's
    # shuffles), the last group's sum, and both (no butterfly over 16 x 16: unrolled with
    # a barrier pair per exchange, PoCL takes minutes to build it)
    ({"GS": 3, "BS": 32, "tile_y": 8, "tile_x": 8, "REDUCE": 1}, "CC"),
    ({"GS": 6, "BS": 64, "tile_y": 3, "tile_x": 5, "REDUCE": 1, "FUSE": 1}, "FC"),
    ({"GS": 64, "BS": 64, "tile_y": 16, "tile_x": 16, "FUSE": 1}, "CF"),
    ({"GS": 7, "BS": 128, "tile_y": 1, "tile_x": 2, "FUSE": 1}, "CC"),
    ({"GS": 1, "BS": 32, "tile_y": 1, "tile_x": 1, "REDUCE": 1, "FUSE": 1}, "FF"),
    # a short K spread on the H100: 132 groups of 128, few steps a work-item
    ({"GS": 132, "BS": 128, "tile_y": 1, "tile_x": 64, "REDUCE": 1, "FUSE": 1}, "CF"),
    # several tiles a group (TG; cut to 3, 2 or 1 where C's tile count says so), with
    # runs read as vectors: B's rows (CC), A's columns (FC), both (FF)
    ({"GS": 3, "BS": 32, "tile_y": 4, "tile_x": 4, "TG": 4}, "CC"),
    ({"GS": 5, "BS": 32, "tile_y": 4, "tile_x": 8, "TG": 2, "REDUCE": 1, "FUSE": 1}, "FC"),
    ({"GS": 4, "BS": 64, "tile_y": 8, "tile_x": 4, "TG": 4, "FUSE": 1}, "FF"),
    # several steps' loads at once (KU), with the steps left over one by one
    ({"GS": 3, "BS": 32, "tile_y": 4, "tile_x": 4, "KU": 2}, "CC"),
    ({"GS": 2, "BS": 64, "tile_y": 3, "tile_x": 8, "KU": 4, "TG": 2, "FUSE": 1}, "CF"),
    # each row of the tile one vector (ROWVEC): B's rows as vectors (CC, FC; 3 of 4 lanes
    # read past the tile), value by value (CF, FF); in KU sums; vectors of 1 and 16
    ({"GS": 3, "BS": 1, "tile_y": 8, "tile_x": 8, "ROWVEC": 1}, "CC"),
    ({"GS": 5, "BS": 1, "tile_y": 4, "tile_x": 3, "ROWVEC": 1}, "CC"),
    ({"GS": 2, "BS": 1, "tile_y": 3, "tile_x": 5, "ROWVEC": 1, "KU": 2}, "FC"),
    ({"GS": 4, "BS": 1, "tile_y": 8, "tile_x": 3, "ROWVEC": 1, "KU": 4}, "CF"),
    ({"GS": 7, "BS": 1, "tile_y": 1, "tile_x": 1, "ROWVEC": 1, "KU": 2}, "FF"),
    ({"GS": 64, "BS": 1, "tile_y": 2, "tile_x": 16, "ROWVEC": 1, "FUSE": 1}, "CC"),
    ({"GS": 6, "BS": 1, "tile_y": 1, "tile_x": 2, "ROWVEC": 1, "KU": 8}, "CC"),
    # B's rows in whole vectors (FLAT): blocks of 8 steps (2 columns), 16 steps as 3
    # vectors (3), 4 as 3 (12); A's steps loaded as a vector (CC) or value by value
    # (FC); where C's columns are not the tile's (N < 12), the rows' form instead
    ({"GS": 3, "BS": 1, "tile_y": 4, "tile_x": 2, "ROWVEC": 1, "FLAT": 1, "KU": 2}, "CC"),
    ({"GS": 5, "BS": 1, "tile_y": 2, "tile_x": 3, "ROWVEC": 1, "FLAT": 1}, "FC"),
    ({"GS": 2, "BS": 1, "tile_y": 1, "tile_x": 12, "ROWVEC": 1, "FLAT": 1}, "CC"),
    # one column a tile: 16 steps a vector along K where B's column lies along K (a
    # column-major B, or a row-major B of one column: (7, 1, 999)), else step by step
    ({"GS": 3, "BS": 1, "tile_y": 4, "tile_x": 1, "ROWVEC": 1}, "CF"),
    ({"GS": 2, "BS": 1, "tile_y": 8, "tile_x": 1, "ROWVEC": 1, "KU": 2}, "CC"),
])
def test_tallskinny_any_shape_and_layout(device, params, order):
    from portgemm.families.tallskinny import butterfly_miscompiled

    if params.get("REDUCE") and butterfly_miscompiled(device):
        a, b = operands(3, 3, 100)
        with pytest.raises(portgemm.ParameterError, match="PoCL 5"):
            portgemm.gemm(a, b, device=device, variant="tallskinny", params=params)
        return
    for m, n, k in AWKWARD:
        a, b = operands(m, n, k, order=order)
        assert_close(portgemm.gemm(a, b, device=device, variant="tallskinny", params=params,
                                   poison=np.nan).c, a, b)


@pytest.mark.parametrize("columns, rows, steps", [(2, 4, 2), (3, 2, 1), (5, 1, 1),
                                                   (7, 1, 2), (12, 1, 1), (15, 1, 1)])
def test_flat_rows_any_shape(device, columns, rows, steps):
    """FLAT: B's rows in blocks of whole vectors, for C of exactly the tile's columns:
    K past ROW_CHUNK, not a multiple of the block, shorter than a block, and less than a
    group's share; C's rows past the tile's; both types; A row- or column-major; a stack
    in one launch; C poisoned first."""
    params = {"GS": 3, "BS": 1, "tile_y": rows, "tile_x": columns, "ROWVEC": 1, "FLAT": 1,
              "KU": steps}
    for dtype in (np.float32, np.float64):
        if dtype == np.float64 and not device.has_fp64:
            continue
        for m, k in [(1, 1), (rows, 7), (rows + 3, 17), (9, 3001), (2, 100003)]:
            for order in ("CC", "FC"):
                a, b = operands(m, columns, k, dtype=dtype, order=order)
                assert_close(portgemm.gemm(a, b, device=device, variant="tallskinny",
                                           params=params, poison=np.nan).c, a, b)
    stack_a, stack_b = (np.stack([operands(rows + 1, columns, 999, seed=s)[i] for s in (1, 2)])
                        for i in (0, 1))
    stacked = portgemm.matmul(stack_a, stack_b, device=device, variant="tallskinny",
                              params={**params, "GS": 1})
    for c, a, b in zip(stacked, stack_a, stack_b):
        assert_close(c, a, b)


@pytest.mark.parametrize("params", [
    {"GS": 1, "BS": 1, "tile_y": 8, "tile_x": 1, "ROWVEC": 1},
    {"GS": 1, "BS": 32, "tile_y": 3, "tile_x": 5, "FUSE": 1},  # no ticket for one group
    {"GS": 8, "BS": 64, "tile_y": 4, "tile_x": 4},  # K too short for a second group
])
def test_one_group_writes_c_in_one_launch(device, params):
    """Where a tile takes one group, its partial tile is C's: one launch, no workspace,
    and every element of C written (C poisoned first)."""
    for m, n, k in [(29, 3, 1), (1, 1, 40), (13, 11, 64), (64, 2, 1000)]:
        if params["GS"] > 1 and k > params["BS"]:
            continue
        a, b = operands(m, n, k)
        result = portgemm.gemm(a, b, device=device, variant="tallskinny", params=params,
                               poison=np.nan)
        assert len(result.step_ms) == 1
        assert_close(result.c, a, b)
    plan = portgemm.families.get_variant("tallskinny").plan(
        64, 2, 1000, {**portgemm.families.get_variant("tallskinny").defaults, **params})
    if params["GS"] == 1:
        assert (len(plan.steps), plan.workspace, plan.args[-1]) == (1, (), "C")


WIDE_AWKWARD = [(1, 300, 1000), (3, 70, 2049), (2, 17, 31), (5, 257, 100), (1, 33, 1),
                (4, 40, 3001), (17, 40, 999)]


@pytest.mark.parametrize("params, order", [
    # rows of several vectors of 16 (a wide C on a CPU): whole vectors (CC, 4 x 64), lanes
    # past the tile read from the next tile or row (CC, FC), value by value (CF, FF); in
    # KU sums; the last group's sum; 16 vectors a row
    ({"GS": 3, "BS": 1, "tile_y": 4, "tile_x": 64, "ROWVEC": 1}, "CC"),
    ({"GS": 5, "BS": 1, "tile_y": 2, "tile_x": 40, "ROWVEC": 1}, "CC"),
    ({"GS": 2, "BS": 1, "tile_y": 3, "tile_x": 33, "ROWVEC": 1, "KU": 2}, "FC"),
    ({"GS": 4, "BS": 1, "tile_y": 1, "tile_x": 48, "ROWVEC": 1}, "CF"),
    ({"GS": 7, "BS": 1, "tile_y": 3, "tile_x": 17, "ROWVEC": 1, "KU": 4}, "FF"),
    ({"GS": 9, "BS": 1, "tile_y": 1, "tile_x": 256, "ROWVEC": 1, "FUSE": 1}, "CC"),
    # B along K (CF): blocks of 4 x 4 of a 16 x 16 tile, rows and columns past the tile
    ({"GS": 3, "BS": 1, "tile_y": 16, "tile_x": 16, "ROWVEC": 1}, "CF"),
    ({"GS": 2, "BS": 1, "tile_y": 6, "tile_x": 7, "ROWVEC": 1}, "CF"),
])
def test_rows_of_several_vectors(device, params, order):
    for m, n, k in WIDE_AWKWARD + AWKWARD[:4]:
        a, b = operands(m, n, k, order=order)
        assert_close(portgemm.gemm(a, b, device=device, variant="tallskinny", params=params,
                                   poison=np.nan).c, a, b)


@pytest.mark.parametrize("order", ["CC", "FF"])
@pytest.mark.parametrize("params", [{"GS": 4, "BS": 32, "tile_y": 4, "tile_x": 4, "TG": 2},
                                    {"GS": 4, "BS": 1, "tile_y": 4, "tile_x": 4, "ROWVEC": 1}])
def test_tallskinny_unaligned_runs(device, order, params):
    """Operands that start one element past an aligned address (host views, which CPU
    devices use in place) are read value by value: the kernel's alignment check (ROWVEC's
    vector loads need no alignment)."""
    for m, n, k in [(8, 8, 3001), (4, 12, 999)]:
        a, b = operands(m, n, k, order=order)
        a_view = np.empty(a.size + 1, a.dtype)[1:].reshape(a.shape, order=order[0])
        b_view = np.empty(b.size + 1, b.dtype)[1:].reshape(b.shape, order=order[1])
        a_view[...], b_view[...] = a, b
        assert_close(portgemm.gemm(a_view, b_view, device=device, variant="tallskinny",
                                   params=params, poison=np.nan).c, a, b)


@pytest.mark.parametrize("variant", ["phvm", "basicmm"])
@pytest.mark.parametrize("params", [{"GS": 2, "BS": 64}, {"GS": 7, "BS": 32}, {"GS": 1, "BS": 256},
                                    {"GS": 3, "BS": 32, "ELEMENT_LAUNCHES": 1}])
def test_paper_kernels_any_shape(device, variant, params):
    for m, n, k in AWKWARD[:6]:
        a, b = operands(m, n, k, order="CF")  # B column-major: the paper's contiguous F.COL(j)
        assert_close(portgemm.gemm(a, b, device=device, variant=variant, params=params).c, a, b)


def test_element_launches_plan_one_launch_per_element():
    impl = get_variant("phvm")
    params = impl.resolve({"GS": 4, "BS": 64, "ELEMENT_LAUNCHES": 1})
    steps = impl.plan(3, 5, 1000, params).steps
    assert len(steps) == 15 and [step.args[-1] for step in steps] == list(range(15))
    assert len(impl.plan(3, 5, 1000, impl.resolve({"GS": 4, "BS": 64})).steps) == 1
    with pytest.raises(portgemm.ParameterError, match="per element"):
        impl.plan(100, 100, 1000, params)


@pytest.mark.parametrize("variant", ["tallskinny", "phvm"])
def test_float64(device, variant):
    if not device.has_fp64:
        pytest.skip("no float64")
    a, b = operands(4, 3, 20001, dtype=np.float64)
    try:
        assert_close(portgemm.gemm(a, b, device=device, variant=variant).c, a, b)
    except portgemm.ParameterError as exc:  # phvm: a device without 64-bit atomics says so
        assert "cl_khr_int64_base_atomics" in str(exc)


@pytest.mark.parametrize("split", [2, 3, 8])
@pytest.mark.parametrize("shape", [(1, 1, 1), (67, 45, 1000), (130, 129, 777), (5, 3, 2),
                                   (515, 513, 70)])  # a C summed 4 elements a work-item
def test_xgemm_split_k(device, split, shape):
    from portgemm.families.xgemm import CPU_DEFAULTS

    params = dict(CPU_DEFAULTS, MWG=64, NWG=64, MDIMC=16, NDIMC=16, KWG=32, WARPN=16,
                  KSPLIT=split)
    for order in ("CC", "FC", "CF"):
        a, b = operands(*shape, order=order)
        assert_close(portgemm.gemm(a, b, device=device, variant="xgemm", params=params,
                                   poison=np.nan).c, a, b)


# --- determinism -------------------------------------------------------------------------

@pytest.mark.parametrize("variant, params", [
    ("tallskinny", {"GS": 16, "BS": 64, "tile_y": 4, "tile_x": 4}),
    ("tallskinny", {"GS": 16, "BS": 64, "tile_y": 4, "tile_x": 4, "REDUCE": 1, "FUSE": 1}),
    ("tallskinny", {"GS": 16, "BS": 32, "tile_y": 4, "tile_x": 2, "TG": 4, "KU": 2,
                    "FUSE": 1}),
    ("tallskinny", {"GS": 16, "BS": 1, "tile_y": 8, "tile_x": 6, "KU": 2, "ROWVEC": 1}),
    ("xgemm", {"MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 16, "NDIMC": 16, "WARPN": 16,
               "KSPLIT": 4}),
])
def test_split_kernels_are_bitwise_deterministic(device, variant, params):
    from portgemm.families.tallskinny import butterfly_miscompiled

    if params.get("REDUCE") and butterfly_miscompiled(device):
        pytest.skip("REDUCE=1 is refused on PoCL 5 (test_tallskinny_any_shape_and_layout "
                    "checks the refusal)")
    a, b = operands(8, 6, 300001)
    first = portgemm.gemm(a, b, device=device, variant=variant, params=params).c
    for _ in range(3):
        assert np.array_equal(portgemm.gemm(a, b, device=device, variant=variant,
                                            params=params).c, first)


def test_steps_loaded_at_once_leave_the_sums_alone(device):
    """KU only moves loads earlier: the products are added in the same order, so C is the
    same bit for bit (with runs read as vectors, CC, and value by value, FF)."""
    for order in ("CC", "FF"):
        a, b = operands(8, 8, 30001, order=order)
        base = {"GS": 5, "BS": 32, "tile_y": 4, "tile_x": 8}
        first = portgemm.gemm(a, b, device=device, variant="tallskinny", params=base).c
        for steps in (2, 4):
            again = portgemm.gemm(a, b, device=device, variant="tallskinny",
                                  params={**base, "KU": steps}).c
            assert np.array_equal(again, first), (order, steps)


GUARDED_B = """
import ctypes, mmap, sys
import numpy as np
import portgemm
page = mmap.PAGESIZE
k, n, tile = (int(x) for x in sys.argv[2:5])  # B ends just short of 3 pages
memory = mmap.mmap(-1, 4 * page)
libc = ctypes.CDLL(None, use_errno=True)
address = ctypes.addressof(ctypes.c_char.from_buffer(memory))
assert libc.mprotect(ctypes.c_void_p(address + 3 * page), page, 0) == 0  # PROT_NONE
flat = np.frombuffer(memory, np.float32)[:3 * page // 4]
b = flat[len(flat) - k * n:].reshape(k, n)        # its last value right before the guard
b[...] = np.random.default_rng(0).uniform(-1, 1, (k, n))
a = np.random.default_rng(1).uniform(-1, 1, (2, k)).astype(np.float32)
params = {"GS": 3, "BS": 1, "tile_y": 2, "tile_x": tile, "ROWVEC": 1, "KU": 2}
c = portgemm.matmul(a, b, device=sys.argv[1], variant="tallskinny", params=params)
assert np.allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
print("in bounds")
"""


@pytest.mark.parametrize("k, n, tile", [(1000, 3, 3), (60, 40, 40), (40, 60, 32)])
def test_row_vectors_stop_at_the_end_of_b(device, k, n, tile):
    """ROWVEC reads 4 values for a tile of 3 columns, the one past the tile from B's next
    row, and 48 for a tile of 40 (three vectors of 16), 64 for the second tile of 32 of 60
    columns; the last row has none after it and is read value by value. B ends right
    before a page the process may not read (a CPU device uses it in place): a read past
    its end would kill the child process."""
    if device.type != "cpu":
        pytest.skip("a GPU reads a copy of B")
    run = subprocess.run([sys.executable, "-c", GUARDED_B, device.filter_string,
                          str(k), str(n), str(tile)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "in bounds" in run.stdout, run.stderr[-2000:]


def test_one_rowvec_group_sums_a_long_run_accurately(device):
    """ROWVEC sums each chunk of 1024 steps on its own before the run's total: one group
    over all of K = 2^22 (a 4-million-term sum, 3.5e-5 of error in one sequence) stays
    within issue 9's 5e-6, for rows of 8, of 2 (two sums) and one column (vectors along
    K)."""
    if device.type != "cpu":
        pytest.skip("one work-item a tile walks all of K: seconds on a GPU")
    for m, n in [(8, 8), (2, 2), (4, 1)]:
        a, b = operands(m, n, 1 << 22)
        params = {"GS": 1, "BS": 1, "tile_y": m, "tile_x": n, "ROWVEC": 1,
                  "KU": 2 if n == 2 else 1}
        c = portgemm.matmul(a, b, device=device, variant="tallskinny", params=params)
        ref = a.astype(np.float64) @ b
        assert np.linalg.norm(c - ref) / np.linalg.norm(ref) <= 5e-6, (m, n)


def test_auto_rows_as_vectors_in_float64(device):
    """Auto's CPU routes through ROWVEC in float64 (vectors of doubles, 16 steps of one
    column a double16), every layout, an unwritten element showing as NaN: tall-skinny
    shapes on every CPU, a tall or wide C too on Intel's runtime (PoCL routes those by
    size)."""
    if device.type != "cpu" or not device.has_fp64:
        pytest.skip("a CPU with float64")
    shapes = [(8, 8, 100003), (1, 1, 50000)]
    if compiler_kind(device) == "work-item-vectorising":
        shapes += [(4096, 1, 777), (2, 1000, 3001), (700, 5, 1000)]
    for shape in shapes:
        for order in ("CC", "CF", "FC"):
            a, b = operands(*shape, dtype=np.float64, order=order)
            result = portgemm.gemm(a, b, device=device, poison=np.nan)
            assert result.variant == "tallskinny" and result.params["ROWVEC"] == 1
            assert_close(result.c, a, b)


@pytest.mark.parametrize("order, tile", [("CC", (8, 48)), ("FC", (8, 48)),
                                         ("CF", (16, 16)), ("FF", (16, 16))])
def test_the_model_weighs_the_layout(device, order, tile):
    """gemm hands the operands' layout to tallskinny's model: a wide C of 16 rows on a CPU
    runtime that vectorises across work-items takes tiles of 8 rows where B is read along
    its rows and one tile of 16 where it is read along K or gathered; the result is
    checked. (auto gives such a C to panel there since 2026-11-26; a user may name
    tallskinny.)"""
    if compiler_kind(device) != "work-item-vectorising":
        pytest.skip("ROWVEC's wide tiles are Intel's CPU runtime's route")
    a, b = operands(16, 1000, 600, order=order)
    result = portgemm.gemm(a, b, device=device, variant="tallskinny", poison=np.nan)
    assert result.variant == "tallskinny"
    assert (result.params["tile_y"], result.params["tile_x"]) == tile
    assert_close(result.c, a, b)


@pytest.mark.parametrize("platform", ["Intel(R) OpenCL", "Portable Computing Language"])
def test_rows_as_vectors_on_a_cpu(platform):
    """Every CPU: groups of one work-item, tiles of at most 8 rows and 16 columns (C's
    columns shared evenly), 8 sums in flight (rows x vectors x KU); on Intel's runtime
    B's rows in whole vectors (FLAT) where both operands are row-major and the tile is
    all of C's 2-15 columns, 2 sums in flight (on PoCL where the tile has 2 rows or more
    and fewer than 8 columns). A tall C to 16 columns is skinny on
    Intel's runtime only (PoCL routes by size)."""
    from portgemm.auto.tallskinny import flat_steps, row_steps, row_tile

    cpu = gpu(type="cpu", vendor="Intel(R) Corporation", platform=platform,
              name="AMD EPYC", handle=None, compute_units=2, native_vector_width=16)
    flat = platform == "Intel(R) OpenCL"  # PoCL: tiles of 2 rows or more, under 8 columns
    assert tallskinny_params(cpu, 4, 3, 1 << 22)[0]["FLAT"] == 1
    assert tallskinny_params(cpu, 1, 3, 1 << 22)[0]["FLAT"] == flat
    params, why = tallskinny_params(cpu, 8, 8, 1 << 22)
    assert (params["BS"], params["ROWVEC"], params["KU"], params["FLAT"]) == (1, 1, 1, flat)
    assert ("FLAT=1: B's rows 2 at a time as 1 vector of 16" in why) == flat
    assert ("vector of 8" in why) != flat
    assert tallskinny_params(cpu, 8, 8, 1 << 22, layout="FC")[0]["FLAT"] == 0
    # one tile: ROW_ITEMS_PER_CORE work-items a core, however long their runs of K
    assert tallskinny_params(cpu, 3, 3, 1 << 23)[0]["GS"] == 2 * ROW_ITEMS_PER_CORE
    # the rows' form: ROW_CHAINS sums in flight (tile rows x vectors x KU, KU at most 8)
    for tile, steps in {(2, 2): 4, (1, 2): 8, (1, 3): 8, (4, 2): 2, (3, 3): 4, (8, 2): 1,
                        (1, 64): 2, (2, 64): 1, (8, 16): 1}.items():
        assert row_steps(tile) == steps, tile
    found, why = tallskinny_params(cpu, 2, 2, 1 << 20, layout="CF")
    assert found["KU"] == 4 and "4 sums of steps 4 apart (8 in flight)" in why
    # FLAT: 2 in flight (tile rows x FLAT's vectors x KU), where its values fit
    for (tile, n, layout), steps in {((1, 2), 2, "CC"): 2, ((2, 2), 2, "CC"): 1,
                                     ((1, 3), 3, "CC"): 1, ((1, 8), 8, "CC"): 2,
                                     ((8, 3), 3, "CC"): None,  # 560 values
                                     ((2, 2), 2, "FC"): None, ((2, 2), 2, "CF"): None,
                                     ((8, 8), 16, "CC"): None,  # not all of C's columns
                                     ((1, 16), 16, "CC"): None}.items():
        assert flat_steps(tile, n, layout) == steps, (tile, n, layout)
    assert row_tile(16, 16) == (8, 16) and row_tile(4096, 24) == (8, 12)
    assert row_tile(3, 3) == (3, 3) and row_tile(4096, 17) == (8, 9)
    # a wide C: rows shared evenly among tiles of at most 9 (B read along its rows) or 16
    # (along K, or gathered), each row of whole vectors of 16, as many as 28 vectors of
    # sums allow (16 at most; one where B is gathered), shared evenly among the tiles
    assert row_tile(1, 4096) == (1, 256) and row_tile(2, 4096) == (2, 224)
    assert row_tile(4, 4096) == (4, 112) and row_tile(9, 4096) == (9, 48)
    assert row_tile(10, 4096) == (5, 80) and row_tile(16, 4096) == (8, 48)
    assert row_tile(16, 4096, "FC") == (8, 48) and row_tile(1, 1000) == (1, 256)
    assert row_tile(12, 4096, "CF") == (12, 32) and row_tile(16, 4096, "CF") == (16, 16)
    assert row_tile(20, 4096, "CF") == (10, 32) and row_tile(4, 4096, "CF") == (4, 112)
    assert row_tile(4, 4096, "FF") == (4, 16) and row_tile(16, 4096, "FF") == (16, 16)
    assert row_tile(3, 40) == (3, 40)  # C's columns fit one tile
    wide, why = tallskinny_params(cpu, 1, 4096, 1 << 14)
    assert (wide["tile_x"], wide["GS"]) == (256, 32) and "16 vectors of 16" in why
    # one group a tile, no second launch: A and B within ONE_CORE_BYTES, or within
    # ONE_GROUP_BYTES and a tile a core
    for m, n, k in [(1000, 8, 1000), (16, 16, 8192), (1, 300, 1000), (2048, 16, 4096),
                    (8, 8, 16384), (1, 32, 64)]:
        alone, why = tallskinny_params(cpu, m, n, k)
        assert alone["GS"] == 1 and "one group a tile" in why
    assert tallskinny_params(cpu, 4, 4, 1 << 16)[0]["GS"] > 1  # one tile, 2 MB: cores share K
    assert tallskinny_params(cpu, 64, 64, 1 << 18)[0]["GS"] > 1  # 128 MB: long runs split
    tall = choose(cpu, 4096, 16, 4096, sources=[])
    deep = choose(cpu, 256, 256, 8192, sources=[])  # deep K, a small C
    if compiler_kind(cpu) == "work-item-vectorising":
        assert tall.variant == "tallskinny" and tall.params["tile_x"] == 16
        assert deep.variant == "tallskinny" and "tall-skinny on a work" in deep.reason
    else:
        assert tall.variant != "tallskinny" and deep.variant != "tallskinny"
    assert choose(cpu, 384, 384, 8192, sources=[]).variant != "tallskinny"
    assert choose(cpu, 4096, 20, 4096, sources=[]).variant != "tallskinny"
    # a C of as few values but a side past CPU_DEEP_SIDE: panel ran it 1.2-3x faster on a
    # Xeon (bench/results/2026-11-26-cpu-xeon207-wide-rows)
    for m, n in ((1024, 64), (128, 512), (32, 2048)):
        assert choose(cpu, m, n, 8192, sources=[]).variant != "tallskinny", (m, n)


def test_cpu_groups_keep_the_shared_slices_in_cache(monkeypatch):
    """Where several tiles read the same parts of A and B and those exceed half a core's
    cache, K is cut into the fewest power-of-two ranges whose parts fit it; where only a
    little is shared, one group a tile stays."""
    from portgemm.auto import traits as known

    monkeypatch.setattr(known, "host_l2", lambda: 0)  # the driver's report, not this host's
    cpu = gpu(type="cpu", vendor="Intel(R) Corporation", platform="Intel(R) OpenCL",
              name="Xeon of a 2 MB L2", handle=None, compute_units=2, native_vector_width=16,
              global_mem_cache_size=2 << 20)

    def groups(device, m, n, k):
        return tallskinny_params(device, m, n, k)[0]["GS"]
    # tiles of 8 x 16, A and B both read by several tiles: 16 MB in ranges of 1 MB
    assert groups(cpu, 128, 128, 16384) == 16 and groups(cpu, 64, 64, 65536) == 32
    assert "K in 16 ranges" in tallskinny_params(cpu, 128, 128, 16384)[1]
    assert groups(cpu, 80, 80, 10000) == 8  # 6.4 MB: up to a power of two
    # a C of one tile across: only B's 32 KB is read again, by every tile of rows
    assert groups(cpu, 1000, 8, 1000) == 1
    halved = replace(cpu, name="Xeon of a 1 MB L2", global_mem_cache_size=1 << 20)
    assert groups(halved, 128, 128, 16384) == 32
    unknown = replace(cpu, name="a CPU that keeps its cache to itself", global_mem_cache_size=0)
    assert groups(unknown, 128, 128, 16384) == 32 and "(assumed)" in tallskinny_params(
        unknown, 128, 128, 16384)[1]
    # more groups where the cores want them: 128 MB of A and B, 32 tiles
    assert groups(cpu, 64, 64, 1 << 18) == 128


def test_host_l2_reads_the_second_level(tmp_path):
    from portgemm.auto.traits import host_l2

    for index, (level, size) in enumerate([("1", "48K"), ("1", "64K"), ("2", "2048K"),
                                           ("3", "491520K")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "level").write_text(level + "\n")
        (folder / "size").write_text(size + "\n")
    assert host_l2(str(tmp_path)) == 2 << 20
    assert host_l2(str(tmp_path / "absent")) == 0


def test_ticket_counters_are_left_zero(device):
    """FUSE=1 lends the queue's counters to the kernel, which must hand them back zero:
    later calls (other shapes, other group counts) then sum the right slices."""
    import pyopencl as cl

    params = {"BS": 32, "tile_y": 2, "tile_x": 2, "FUSE": 1}
    for groups, (m, n, k) in zip((5, 2, 9), ((3, 3, 4001), (4, 4, 777), (2, 5, 10007))):
        a, b = operands(m, n, k)
        assert_close(portgemm.gemm(a, b, device=device, variant="tallskinny",
                                   params={**params, "GS": groups}, poison=np.nan).c, a, b)
        queue = portgemm.Queue.for_device(device)
        counters = np.empty(queue.zeroed_counters(1).size // 4, np.int32)
        cl.enqueue_copy(queue.cl_queue, counters, queue.zeroed_counters(1)).wait()
        assert not counters.any()


def test_butterfly_refused_where_it_was_miscompiled():
    from portgemm.families.tallskinny import butterfly_miscompiled

    pocl = dict(vendor="GenuineIntel", platform="Portable Computing Language", type="cpu")
    assert butterfly_miscompiled(gpu(**pocl, driver_version="5.0+debian"))
    assert not butterfly_miscompiled(gpu(**pocl, driver_version="3.0"))
    assert not butterfly_miscompiled(gpu())


def test_butterfly_needs_a_run_of_lanes():
    with pytest.raises(portgemm.ParameterError, match="REDUCE=1 needs BS >= 32"):
        get_variant("tallskinny").resolve({"BS": 16, "REDUCE": 1})
    with pytest.raises(portgemm.ParameterError, match="0 or 1"):
        get_variant("tallskinny").resolve({"FUSE": 2})


@pytest.mark.parametrize("m, n", [(9, 9), (16, 16), (16, 5)])
def test_auto_takes_tallskinny_for_every_tall_skinny_c(device, m, n):
    """A C wider than one work-item's registers (over 64 values on a CPU, 128 on a GPU)
    still goes to tallskinny, in tiles."""
    a, b = operands(m, n, 20011)
    result = portgemm.gemm(a, b, device=device, poison=np.nan)
    assert result.variant == "tallskinny"
    assert result.params["tile_y"] * result.params["tile_x"] <= 128
    assert_close(result.c, a, b)


def test_auto_tall_skinny_is_accurate(any_device):
    """K = 2^22: a GPU work-item adds at most MAX_TERMS products in sequence, a CPU's
    (ROWVEC) chunks of 1024 steps before their total; the error stays ~1e-6."""
    a, b = operands(8, 8, 1 << 22)
    result = portgemm.gemm(a, b, device=any_device)
    assert result.variant == "tallskinny" and result.source == "model"
    ref = a.astype(np.float64) @ b
    assert np.linalg.norm(result.c - ref) / np.linalg.norm(ref) <= 5e-6


# --- routing -----------------------------------------------------------------------------

class FakeHandle:
    compute_capability_major_nv = 9
    compute_capability_minor_nv = 0


def gpu(**changes) -> Device:
    fields = dict(name="NVIDIA H200", vendor="NVIDIA Corporation", platform="NVIDIA CUDA",
                  type="gpu", index=0, compute_units=132, max_work_group_size=1024,
                  max_work_item_sizes=(1024, 1024, 64), local_mem_size=49152,
                  global_mem_size=140 * 2**30, max_mem_alloc_size=35 * 2**30,
                  has_fp64=True, driver_version="580", opencl_version="OpenCL 3.0",
                  handle=FakeHandle())
    fields.update(changes)
    return Device(**fields)


@pytest.mark.parametrize("shape, expected", [
    ((8, 8, 33554432), "tall-skinny"), ((3, 3, 50_000_000), "tall-skinny"),
    ((16, 16, 4096), "tall-skinny"), ((64, 64, 2_097_152), "deep-k"),
    ((1024, 1024, 16384), "deep-k"), ((16384, 64, 4096), "deep-k"),
    ((4096, 4096, 4096), "large"), ((1000, 1000, 1000), "medium"), ((100, 100, 100), "small"),
    ((8, 8, 100), "small"), ((4096, 4096, 1), "shallow-k"), ((512, 600, 128), "shallow-k"),
    ((4096, 4096, 129), "large"), ((511, 4096, 64), "large"),
])
def test_shape_classes(shape, expected):
    name, why = classify(*shape)
    assert name == expected and why
    assert class_order(*shape)[0] in (expected, "medium", "small", "large")


@pytest.mark.parametrize("m, n, k, expected", [
    (17, 17, 1 << 20, "tall-skinny"), (24, 24, 4096, "tall-skinny"),  # 1.3-3x the split-K tiles
    (7, 40, 65536, "tall-skinny"), (100, 5, 1 << 20, "tall-skinny"), (3, 100, 65536, "tall-skinny"),
    (32, 32, 1 << 20, "deep-k"),   # 1024 values: 0.71x in float32
    (2, 200, 1 << 20, "deep-k"),   # a side of 2: 0.73-0.85x in float64
    (24, 24, 800, "medium"),       # K short of the deep-k class and of GPU_SHORT_FROM
])
def test_a_deep_k_c_of_few_values_is_tall_skinny_on_a_gpu(m, n, k, expected):
    """On a GPU, a deep-K C of at most 576 values, at least 3 a side, goes to tallskinny
    (bench/results/2026-11-27-h100-tile-splits); a CPU's classes do not change."""
    assert device_class(gpu(), m, n, k)[0] == expected
    if expected == "tall-skinny":
        assert classify(m, n, k)[0] == "deep-k"
        assert choose(gpu(), m, n, k, sources=[]).variant == "tallskinny"
        pocl = gpu(type="cpu", vendor="The pocl project", platform="Portable Computing Language")
        assert device_class(pocl, m, n, k)[0] == "deep-k"


@pytest.mark.parametrize("m, n, k, itemsize, expected", [
    (20, 40, 8192, 4, "tall-skinny"), (64, 64, 4096, 4, "tall-skinny"),   # 2.44x, 1.8-2.1x
    (64, 64, 4096, 8, "tall-skinny"), (32, 32, 2048, 4, "tall-skinny"),   # 1.28x, 1.54x
    (1, 300, 4096, 4, "tall-skinny"), (2, 500, 16384, 4, "tall-skinny"),  # 1.06x, 1.05x
    (64, 10, 16384, 8, "tall-skinny"), (16, 64, 4096, 8, "tall-skinny"),  # 1.88x, 1.64x
    (2, 200, 65536, 4, "tall-skinny"), (8, 500, 1024, 4, "tall-skinny"),  # 1.57x, 1.82x
    (300, 10, 2000, 8, "tall-skinny"),                                    # 1.57x
    (64, 64, 32768, 4, "deep-k"), (64, 64, 16384, 8, "deep-k"),  # 128 MiB: 0.79x, 0.82x
    (32, 32, 262144, 8, "deep-k"), (2, 500, 16384, 8, "deep-k"),  # 0.87x; 66.5 MiB
    (65, 64, 4096, 4, "deep-k"),                                 # more than 4096 values
    (32, 32, 1000, 4, "medium"),                                 # K under 1024
])
def test_a_small_c_whose_tiles_read_little_is_tall_skinny_on_a_gpu(m, n, k, itemsize,
                                                                  expected):
    """On a GPU, a C of at most 4096 values over a K of 1024 or more whose tallskinny
    tiles read at most 64 MiB goes to tallskinny's one launch (bench/results/2026-11-27-
    h100-short-reads: 1.01-2.44x the split-K tiles); a CPU's classes do not change."""
    assert device_class(gpu(), m, n, k, itemsize)[0] == expected
    chosen = choose(gpu(), m, n, k, itemsize, sources=[])
    assert (chosen.variant == "tallskinny") == (expected == "tall-skinny"), chosen.reason
    pocl = gpu(type="cpu", vendor="The pocl project", platform="Portable Computing Language")
    assert device_class(pocl, m, n, k, itemsize)[0] == classify(m, n, k)[0]


def test_auto_routes_by_shape_on_a_gpu():
    device = gpu()
    tall = choose(device, 8, 8, 33554432, sources=[])
    assert tall.variant == "tallskinny" and "shape class tall-skinny" in tall.reason
    # Little's law: 132 units x 30 KB in flight over 16 floats a step = 61875 work-items,
    # in groups of 512 (an 8 x 8 tile needs about 104 of a work-item's 128 registers):
    # 121, a power of two 128, then the nearest whole waves of the 132 compute units
    assert tall.params["BS"] == 512 and tall.params["GS"] == 132 and "bandwidth model" in tall.reason
    # no 16 x 16 tile in registers: four of 8 x 8, two steps loaded at once, and the
    # work-items a tile needs counted over the bytes the four tiles share: 3.96 MB over
    # two steps of 32 floats = 15469, in groups of 512 (120 registers a work-item): 30
    # groups, then the four tiles' share of the 132 compute units, 33 each
    wide_c = choose(device, 16, 16, 1 << 25, sources=[])
    assert wide_c.variant == "tallskinny" and "4 tiles of C" in wide_c.reason
    assert {key: wide_c.params[key] for key in ("tile_y", "tile_x", "KU", "BS", "GS")} == {
        "tile_y": 8, "tile_x": 8, "KU": 2, "BS": 512, "GS": 33}
    deep = choose(device, 1024, 1024, 16384, sources=[])
    assert deep.variant == "xgemm" and deep.params["KSPLIT"] > 1 and "split-K" in deep.reason
    wide = choose(device, 64, 64, 2_097_152, sources=[])
    assert wide.params["KSPLIT"] >= 64 and wide.params["MWG"] == 64  # the tile inside C
    # 64 columns: wgmma's narrow preset, 128 x 64, where the instruction runs
    thin = choose(device, 16384, 64, 4096, sources=[])
    assert get_variant(thin.variant).block(thin.params)[:2] == (128, 64)
    square = choose(device, 4096, 4096, 4096, sources=[])
    assert square.params.get("KSPLIT", 1) == 1 and "shape class large" in square.reason


def test_deep_k_splits_a_size_class_entry(tmp_path):
    """A deep-K shape with no entry of its own takes a tuned tile and the model's split."""
    import json

    from portgemm.families.xgemm import GPU_DEFAULTS

    db = tmp_path / "db.json"
    db.write_text(json.dumps({"format": "portgemm-tuning", "version": 1, "devices": [
        {"match": {"type": "gpu"}, "entries": [
            {"variant": "xgemm", "shape_class": "large", "dtype": "float32",
             "params": GPU_DEFAULTS, "gflops": 1.0}]}]}))
    chosen = choose(gpu(), 1024, 1024, 16384, sources=[("user", db)])
    assert chosen.source == "user" and chosen.params["KSPLIT"] > 1
    assert "shape class deep-k" in chosen.reason and "split-K model" in chosen.reason


def test_split_model_fills_the_device_and_keeps_slabs():
    from portgemm.families.xgemm import GPU_DEFAULTS

    params = dict(GPU_DEFAULTS)
    split, why = ksplit(gpu(), params, 1024, 1024, 16384, 4)
    assert math.ceil(1024 / 128) ** 2 * split >= 132 * 0.9 and "KSPLIT" in why
    assert split <= 8  # a few layers fill the device; more only add partial products
    assert ksplit(gpu(compute_units=1), params, 1024, 1024, 16384, 4)[0] == 1
    assert ksplit(gpu(), params, 64, 64, 64, 4)[0] == 1  # 4 slabs: too shallow to split


def test_split_model_evens_out_the_last_wave():
    """4097^2 in 128 x 128 tiles is 1089 groups on 132 SMs: 9 waves, the last a quarter
    full; three layers of shorter groups fill 25 (the H200 ran 3 layers fastest of 1-4,
    bench/results/2026-11-22-h200-tail). 4096^2 and 8193^2 end in full waves, and a CPU
    runtime deals its groups to cores as they free up."""
    from portgemm.families.xgemm import GPU_DEFAULTS

    params = dict(GPU_DEFAULTS)
    split, why = ksplit(gpu(), params, 4097, 4097, 4097, 4)
    assert split == 3 and "last of 9 waves is 25% full" in why
    assert ksplit(gpu(), params, 3000, 3000, 3000, 4)[0] > 1
    for n in (4096, 8192, 8193, 2048):
        assert ksplit(gpu(), params, n, n, n, 4)[0] == 1, n
    cpu = gpu(type="cpu", vendor="Intel(R) Corporation", handle=None, compute_units=2)
    assert ksplit(cpu, params, 4097, 4097, 4097, 4)[0] == 1
    # six 32 x 64 groups an SM: the last wave is no wave (measured slower split)
    medium = dict(GPU_DEFAULTS, MWG=32, NWG=64, MDIMC=8, NDIMC=8, VW=1, VWM=4, KWG=32,
                  DOUBLE_BUFFER=0, KUNROLL=8, WARPN=8)
    for n in (1000, 1500, 2000):
        assert ksplit(gpu(), medium, n, n, n, 4)[0] == 1, n
    chosen = choose(gpu(), 4097, 4097, 4097, sources=[])
    assert chosen.params["KSPLIT"] == 3 and "waves" in chosen.reason


def test_split_model_counts_waves_of_layers():
    """A C of 36 tiles of 128 x 128 on 132 SMs: 2 layers fill one wave, 4 spill into a
    second, 32 fill nine nearly full ones; the H200 ran 32 and 16 fastest, 1.53x 2
    (bench/results/2026-11-22-h200-deep-wgmma). Over a short K the waves' starts and
    stores weigh more: 768^3 kept 2 (4 ran 14% slower), 5000^3 none (3 ran 1% slower)."""
    from portgemm.families.xgemm import GPU_DEFAULTS

    params = dict(GPU_DEFAULTS)
    split, why = ksplit(gpu(), params, 768, 768, 16384, 4)
    assert split in (16, 32) and "36 tiles" in why
    assert ksplit(gpu(), params, 768, 768, 768, 4)[0] == 2
    assert ksplit(gpu(), params, 5000, 5000, 5000, 4)[0] == 1
    # a tuned split stands unless the model's own is predicted a tenth faster
    assert ksplit(gpu(), dict(params, KSPLIT=4), 1024, 1024, 16384, 4)[0] == 4
    split, why = ksplit(gpu(), dict(params, KSPLIT=4), 768, 768, 16384, 4)
    assert split in (16, 32) and "tuned KSPLIT=4 predicted" in why


@pytest.mark.parametrize("n, itemsize, steps", [
    (6, 4, 2), (7, 4, 2), (8, 4, 2), (3, 4, 2), (4, 8, 2),
    (5, 4, 1), (9, 4, 1),   # two steps' loads would halve the group
    (2, 4, 1),              # ... or the groups a compute unit holds
    (10, 4, 1),             # groups of 256: 1.44x slower with two
])
def test_one_tile_loads_two_steps_where_the_occupancy_stays(n, itemsize, steps):
    """C of one tile on the H200: KU 2 where a work-item's registers with two steps'
    loads keep the group size (512 or more) and the groups a compute unit holds."""
    params, why = tallskinny_params(gpu(), n, n, 1 << 21, itemsize)
    assert params["KU"] == steps
    assert ("2 steps of K loaded at once" in why) == (steps == 2)
    assert params["GS"] == 132  # the groups as for one step: one wave


def test_bandwidth_model_on_cpu_and_gpu():
    for cpu in (d for d in portgemm.get_devices() if d.type == "cpu"):
        cpu_params, why = tallskinny_params(cpu, 8, 8, 1 << 22)  # a work-item, rows as vectors
        assert (cpu_params["BS"], cpu_params["ROWVEC"]) == (1, 1) and "ROWVEC" in why
        assert cpu_params["GS"] >= cpu.compute_units  # every core has a share of K
    gpu_params, _ = tallskinny_params(gpu(), 16, 16, 1 << 25)
    assert gpu_params["tile_y"] * gpu_params["tile_x"] <= 128
    small = tallskinny_params(gpu(), 3, 3, 50_000_000)[0]
    big = tallskinny_params(gpu(), 8, 8, 50_000_000)[0]
    assert small["GS"] % 132 == 0  # whole waves of the 132 compute units
    # ... also where at least MIN_TERMS steps a work-item would allow fewer: at K = 2^21
    # groups of 1024 allow 128, which left 4 SMs idle
    for m, k in ((3, 1 << 21), (5, 1_200_000), (8, 1 << 20)):
        short = tallskinny_params(gpu(), m, m, k)[0]
        assert short["GS"] == 132 and k // (MIN_TERMS * short["BS"]) < 132, (m, k, short)
    assert tallskinny_params(gpu(), 2, 2, 1 << 22)[0]["GS"] == 264  # the bound: 256
    assert tallskinny_params(gpu(), 1, 1, 3_000_000)[0]["GS"] == 132  # the nearest: 183
    # where 16 steps a work-item would leave SMs idle (64 groups of 1024 at 2^20), fewer
    assert tallskinny_params(gpu(), 3, 3, 1 << 20)[0]["GS"] == 132
    # no more groups than the device holds at once: 8 x 12 takes 140 registers a
    # work-item, one group of 256 a unit, so 264 groups would run in two rounds
    assert tallskinny_params(gpu(), 8, 12, 1 << 20)[0]["GS"] == 132
    # fewer bytes a step: more work-items in flight
    assert small["GS"] * small["BS"] > big["GS"] * big["BS"]
    # groups as big as the registers allow: 3 x 3 fits 64 registers, 8 x 8 needs 128
    assert (small["BS"], big["BS"]) == (1024, 512)
    assert gpu_group(0, (3, 3), 1024) == 256  # an unknown register file: the usual 256
    assert gpu_group(65536, (8, 16), 1024) == 256 and gpu_group(65536, (2, 2), 512) == 512
    assert gpu_group(65536, (8, 8), 1024, steps=2) == 512 and gpu_group(65536, (9, 9), 1024, 2) == 256
    # a double takes two registers: float64's groups half as big (groups of 512 spilled)
    assert item_registers((8, 8), 1, 8) == 2 * (64 + 16) + 24
    assert tallskinny_params(gpu(), 8, 8, 50_000_000, 8)[0]["BS"] == 256
    # ... and fewer values in one tile: a float64 C of 97-128 values in tiles of at most
    # 64 (one of 11 x 11 ran 1.9x slower on the H100), of up to 96 whole; float32's whole
    for m, n in ((11, 11), (2, 54), (1, 128), (8, 16), (10, 10)):
        double = tallskinny_params(gpu(), m, n, 1 << 22, 8)[0]
        assert double["tile_y"] * double["tile_x"] <= 64 < m * n, (m, n, double)
        single = tallskinny_params(gpu(), m, n, 1 << 22, 4)[0]
        assert (single["tile_y"], single["tile_x"]) == (m, n)
    for m, n in ((3, 30), (1, 90), (9, 9), (4, 24)):
        double = tallskinny_params(gpu(), m, n, 1 << 22, 8)[0]
        assert (double["tile_y"], double["tile_x"]) == (m, n), (m, n, double)
    # a tall C of 16 columns: tiles of 8 rows in float32, 4 in float64, within 256 registers
    tall32 = tallskinny_params(gpu(), 4096, 16, 4096, 4)[0]
    tall64 = tallskinny_params(gpu(), 4096, 16, 4096, 8)[0]
    assert (tall32["tile_y"], tall32["KU"]) == (8, 4) and (tall64["tile_y"], tall64["KU"]) == (4, 2)
    # shuffles where the compiler takes PTX, the last group's sum on every GPU
    assert (big["REDUCE"], big["FUSE"]) == (1, 1)
    other = tallskinny_params(gpu(vendor="Advanced Micro Devices, Inc."), 8, 8, 1 << 25)[0]
    assert (other["REDUCE"], other["FUSE"]) == (0, 1)
    assert tile_for(9, 9, 128) == (9, 9) and tile_for(16, 16, 64) in ((8, 8),)


@pytest.mark.parametrize("m, n, tile", [
    (11, 12, (5, 12)),  # all 12 columns: 4.4x faster than the fewest tiles' 11 x 5
    (32, 6, (10, 6)),   # 3.2x faster than 32 x 2
    (9, 16, (8, 8)),    # two vectors of B a row: 1.8x faster than 9 x 7
    (6, 32, (6, 8)),    # 2.2x faster than 2 x 32
    (3, 64, (3, 16)),   # few rows, more columns: 2.1x faster than 1 x 64
    (30, 5, (16, 4)),   # never 5 columns: 2.8x faster than 10 x 5
    (64, 3, (16, 3)),   # at most 16 rows where C has few columns: 1.3x faster than 64 x 1
    (20, 10, (6, 10)), (16, 16, (8, 8)), (8, 32, (8, 8)),  # kept: as fast as any split
    # columns that divide C's, none cut short (bench/results/2026-11-27-h100-small-c)
    (1, 160, (1, 40)),  # 2.9x faster than 1 x 64 and a short 1 x 32
    (1, 240, (1, 48)),  # 1.8x
    (2, 400, (2, 16)),  # 1.6x faster than 2 x 32
    (4, 200, (4, 8)),   # 1.3x faster than 4 x 16
    (1, 100, (1, 64)), (1, 256, (1, 64)), (10, 13, (8, 8)),  # none divides, or 64 does
])
def test_a_wide_c_is_split_by_its_columns(m, n, tile):
    """A C of more than 128 values in tiles of at most 64 accumulators, by how each tile
    reads B (bench/results/2026-11-27-h100-tile-splits, the H100 at K = 2^20); every
    split fits the budget."""
    assert tile_for(m, n, 64) == tile
    for rows in range(1, 70):
        for cols in range(1, 70):
            if rows * cols > 64:
                got = tile_for(rows, cols, 64)
                assert got[0] * got[1] <= 64 and got[0] <= rows and got[1] <= cols


@pytest.mark.parametrize("m, n, itemsize, expected", [
    (1, 257, 4, "skinny"), (1, 500, 4, "skinny"), (2, 450, 4, "skinny"),
    (3, 500, 4, "skinny"),       # 1.15-1.51x mma's 16 x 128 in the wide kernel
    (2, 200, 4, "deep-k"),       # fewer than 256 columns (2 x 160-256: 0.78-0.87x)
    (4, 300, 4, "deep-k"),       # more than 3 rows
    (1, 300, 8, "deep-k"),       # float64: 0.59x
])
def test_a_deep_k_c_of_few_rows_in_uneven_tiles_is_skinny_on_a_gpu(m, n, itemsize,
                                                                  expected):
    """On a GPU, a deep-K float32 C of 1-3 rows and 256-511 columns that tallskinny's
    tiles leave a short tile of goes to the wide kernel (bench/results/2026-11-27-h100-
    spread), where its tiles read more than GPU_SHORT_READS; a CPU's classes do not
    change."""
    for k in (1 << 18, 1 << 19):
        assert classify(m, n, k)[0] == "deep-k"
        assert device_class(gpu(), m, n, k, itemsize)[0] == expected
        chosen = choose(gpu(), m, n, k, itemsize, sources=[])
        assert (chosen.variant == "wide") == (expected == "skinny"), chosen.reason
    pocl = gpu(type="cpu", vendor="The pocl project", platform="Portable Computing Language")
    assert device_class(pocl, m, n, 1 << 19, itemsize)[0] == "deep-k"


@pytest.mark.parametrize("m, n, itemsize, expected", [
    (1, 400, 4, "tall-skinny"), (2, 160, 4, "tall-skinny"), (4, 200, 4, "tall-skinny"),
    (5, 160, 4, "tall-skinny"), (8, 400, 4, "tall-skinny"),  # 1.15-2.27x mma's 16 x 128
    (1, 400, 8, "tall-skinny"),  # float64, one row: 1.06x
    (8, 100, 4, "deep-k"),       # a short tile left: 0.78x
    (1, 300, 4, "skinny"),       # a short tile left, few rows: wide
    (9, 160, 4, "deep-k"),       # more than 8 rows
    (2, 400, 8, "deep-k"),       # float64, 2-8 rows: 0.85-1.16x
])
def test_a_deep_k_c_of_few_rows_in_even_tiles_is_tall_skinny_on_a_gpu(m, n, itemsize,
                                                                     expected):
    """On a GPU, a deep-K C of at most 8 rows (float64: 1) and fewer than 512 columns,
    which tallskinny's tiles cover with none cut short, goes to tallskinny
    (bench/results/2026-11-27-h100-small-c); a CPU's classes do not change."""
    k = 1 << 19
    assert classify(m, n, k)[0] == "deep-k"
    assert device_class(gpu(), m, n, k, itemsize)[0] == expected
    chosen = choose(gpu(), m, n, k, itemsize, sources=[])
    assert (chosen.variant == "tallskinny") == (expected == "tall-skinny"), chosen.reason
    if expected == "tall-skinny":
        assert n % chosen.params["tile_x"] == 0
    pocl = gpu(type="cpu", vendor="The pocl project", platform="Portable Computing Language")
    assert device_class(pocl, m, n, k, itemsize)[0] == "deep-k"


@pytest.mark.parametrize("m, n, itemsize, expected", [
    (500, 8, 4, "skinny"), (300, 8, 4, "skinny"), (450, 3, 4, "skinny"),  # 1.42-2.18x
    (100, 6, 4, "skinny"), (300, 4, 8, "skinny"), (400, 2, 8, "skinny"),  # float64 1.06-1.64x
    (300, 2, 4, "deep-k"),    # float32, 2 columns: 0.87x
    (256, 12, 4, "deep-k"),   # 12-24 columns: 0.64-1.28x
    (300, 9, 8, "deep-k"),    # float64, 9 or more columns: mma's tall tiles
])
def test_a_deep_k_c_of_few_columns_and_rows_under_512_is_skinny_on_a_gpu(m, n, itemsize,
                                                                        expected):
    """On a GPU, a deep-K C of 3-8 columns in float32 (2-8 in float64) and fewer than
    512 rows goes to tallskinny's tiles, as a longer one does (bench/results/2026-11-27-
    h100-shallow), where its tiles read more than GPU_SHORT_READS; a CPU's classes do
    not change."""
    k = 1 << 18
    assert classify(m, n, k)[0] == "deep-k"
    assert device_class(gpu(), m, n, k, itemsize)[0] == expected
    chosen = choose(gpu(), m, n, k, itemsize, sources=[])
    assert (chosen.variant == "tallskinny") == (expected == "skinny"), chosen.reason
    pocl = gpu(type="cpu", vendor="The pocl project", platform="Portable Computing Language")
    assert device_class(pocl, m, n, k, itemsize)[0] == "deep-k"


@pytest.mark.parametrize("m, n, k, groups, size", [
    (1, 64, 65536, 132, 128),   # 16 groups of 256 before: 44 us, now 16
    (8, 8, 65536, 132, 128),    # 8 of 512: 1.3x
    (9, 9, 131072, 132, 256),   # 16 of 512: 1.5x
    (3, 3, 8192, 16, 128),      # too short for the compute units even so
    (16, 16, 65536, 32, 512),   # 4 tiles, each 8 groups before: their share, 1.5x
])
def test_a_short_k_is_spread_over_the_compute_units(m, n, k, groups, size):
    """At a K too short for 16 steps a work-item to give each of the H100's 132 SMs a
    group, a GPU work-item takes as few as 4, and groups as small as 128 where even that
    leaves half the SMs idle (bench/results/2026-11-27-h100-spread)."""
    params, why = tallskinny_params(gpu(), m, n, k)
    assert (params["GS"], params["BS"]) == (groups, size), why
    # 4 steps a work-item at least, but where rounded up to a whole wave of groups
    assert k >= GPU_MIN_TERMS * groups * size or groups == 132


def test_many_tiles_take_groups_for_several_rounds():
    """A C of more tiles than a third of the compute units (a tall C of few columns)
    takes groups enough for MANY_TILE_ROUNDS rounds of those the device holds at once,
    where its share gave each tile one or two (the H100: 3000 x 3 x 20000 2.9x faster,
    bench/results/2026-11-27-h100-shallow); fewer tiles keep their share, and a tall C of
    TALL_FROM columns its groups."""
    for m, n, k in ((3000, 3, 20000), (1753, 2, 32722), (8000, 2, 16384)):
        params, why = tallskinny_params(gpu(), m, n, k)
        tiles = int(why.split(" tiles of C")[0].rsplit("(", 1)[1])
        assert tiles * MANY_TILES > 132 and params["GS"] >= 4, (m, n, params)
    assert tallskinny_params(gpu(), 600, 3, 100_000)[0]["GS"] == 132 // 38  # 38 tiles
    tall = tallskinny_params(gpu(), 1000, 12, 65536)[0]  # 125 tiles of 8 x 12
    assert (tall["tile_y"], tall["GS"]) == (8, 4)


def test_several_tiles_take_their_share_of_the_compute_units():
    """Each of C's tiles takes 132 // tiles groups when one group a unit fits: 6 tiles in
    22 groups each ran 1.15-1.33x faster than in 16 or 32 (two rounds of groups), 3 in
    44 1.0-1.14x faster than in 32 (bench/results/2026-11-27-h100-tile-splits)."""
    for (m, n), tiles in (((9, 24), 6), ((21, 12), 5), ((16, 16), 4), ((11, 12), 3)):
        params, why = tallskinny_params(gpu(), m, n, 1 << 20)
        assert f"{tiles} tiles of C" in why and params["BS"] == 512
        assert params["GS"] == 132 // tiles


# --- the paper's model -------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [("rtx2080ti", (136, 512)),
                                            ("a100-pcie-40gb", (864, 256))])
def test_model_reproduces_the_papers_optima(name, expected):
    constants = phvm.NAMED[name]
    for m in (5, 7, 9):  # Table 2's MTX1-3
        assert phvm.optimum(constants, m, m, 30_000_000)[:2] == expected
    gs, bs = expected
    assert (gs, bs) in phvm.configurations(constants)
    assert gs * bs == constants.sms * constants.sm_num  # constraint (2)


def test_a_cpu_takes_an_odd_grid_and_keeps_every_slot_busy():
    """On a CPU the grid stride GS * BS must not be a power of two (it aliases a core's
    L1 sets): (2)'s GS is rounded up to odd, the paper's devices keep their counts."""
    cpu = replace(phvm.NAMED["a100-pcie-40gb"], sm_num=2, sms=1024, ws=16, cores=32,
                  odd_grid=True)
    found = phvm.configurations(cpu)
    assert found and all(gs % 2 == 1 and gs * bs >= cpu.sms * cpu.sm_num for gs, bs in found)
    assert (129, 16) in found and (3, 1024) in found
    assert all(gs % 2 == 0 for gs, _ in phvm.configurations(phvm.NAMED["rtx2080ti"]))


def test_a_cpu_gives_each_work_item_a_run_of_k_instead_of_filling_slots():
    """Where the probe measured a run (a CPU), the grid is the fewest work-items that give
    each a run of at most that many steps of K, GS odd and at least a group a core, BS as
    (3)-(4) allow, and the model takes the largest BS; without K, and on the paper's
    devices, (2)'s grid and (9)-(10)'s choice."""
    cpu = replace(phvm.NAMED["a100-pcie-40gb"], sm_num=2, sms=1024, ws=16, cores=32,
                  odd_grid=True, run=16)
    k = 3_000_000
    found = phvm.configurations(cpu, k)
    assert [bs for _, bs in found] == [16, 32, 64, 128, 256, 512, 1024]
    for gs, bs in found:
        assert gs % 2 == 1 and gs * bs >= k / 16 > (gs - 2) * bs
    assert (11719, 16) in found and (185, 1024) in found
    # along the line, the fewest groups: a core pays each group's tree and atomic in turn
    assert phvm.optimum(cpu, 5, 5, k)[:2] == (185, 1024)
    assert phvm.optimum(replace(cpu, max_bs=256), 5, 5, k)[:2] == (733, 256)
    assert phvm.configurations(cpu) == phvm.configurations(replace(cpu, run=0), k)
    # the probe's group size where it measured one, else the largest BS up to it
    assert phvm.optimum(replace(cpu, group=64), 5, 5, k)[:2] == (2931, 64)
    assert phvm.optimum(replace(cpu, group=100), 5, 5, k)[:2] == (2931, 64)
    assert phvm.optimum(replace(cpu, group=16), 5, 5, k)[:2] == (11719, 16)
    # K shorter than a run: still a group for each core (2, made odd)
    assert phvm.configurations(cpu, 100) == [(3, bs) for _, bs in found]
    for name in phvm.NAMED:
        assert phvm.configurations(phvm.NAMED[name], k) == phvm.configurations(phvm.NAMED[name])


def test_the_walk_covers_every_run_and_group_size_and_keeps_the_fastest(any_device):
    """A CPU's run and group size come from the paper's kernel timed over every run of
    WALK_RUNS and group sizes doubling from the SIMD width, each on the model's own grid
    for it (odd, as on a CPU)."""
    from portgemm.runtime import probe as probing

    points = probing.walk_points(any_device)
    sizes = sorted({bs for _, _, bs in points})
    limit = min(any_device.max_work_group_size, 1024)
    assert sizes[0] == max(1, any_device.native_vector_width) and sizes[-1] <= limit
    assert all(b == a * 2 for a, b in zip(sizes, sizes[1:])) and sizes[-1] * 2 > limit
    assert {(run, bs) for run, _, bs in points} == {(r, b) for r in probing.WALK_RUNS
                                                     for b in sizes}
    k = probing.WALK_SHAPE[2]
    cpu = replace(phvm.NAMED["a100-pcie-40gb"], sm_num=any_device.compute_units,
                  sms=1024, ws=sizes[0], max_bs=limit, odd_grid=True, run=16)
    least = probing.made_odd(any_device.compute_units, True)  # a group a compute unit
    for run, gs, bs in points:
        assert gs % 2 == 1 and gs * bs >= k / run
        assert (gs - 2) * bs < k / run or gs == least  # the fewest groups that give the run
        assert (gs, bs) in phvm.configurations(replace(cpu, run=run), k) or bs > cpu.sms
    # the fastest, or of the points tied with it the longest run, and that run's fastest group
    assert probing.fastest_walk({(16, 1024): 9.0, (128, 64): 7.5, (256, 16): 8.0}) == (128, 64)
    assert probing.fastest_walk({(16, 1024): 7.6, (128, 64): 7.5, (256, 16): 7.8,
                                 (256, 32): 7.7, (256, 64): 9.5, (512, 16): 9.0}) == (256, 32)
    assert probing.fastest_walk({(128, 64): 7.5, (256, 16): 7.7, (256, 32): 7.8}) == (256, 16)
    assert probing.WALK_SLACK < 1.1


def test_the_walk_times_the_papers_kernel(any_device):
    """Each point of the walk is the paper's Algorithm 1 at WALK_SHAPE, timed."""
    from portgemm.runtime import probe as probing

    points = probing.walk_points(any_device)[:2]
    times = probing.walk_times(any_device, points, rounds=1)
    assert set(times) == {(run, bs) for run, _, bs in points}
    assert all(ms > 0 for ms in times.values())


def test_the_sweep_grid_has_odd_neighbours_where_asked(any_device):
    from portgemm.tune.sweep import grid

    plain = {gs for gs, _ in grid(any_device, simd=16, max_gs=64)}
    odd = {gs for gs, _ in grid(any_device, simd=16, max_gs=64, odd=True)}
    assert plain == {1, 2, 4, 8, 16, 32, 64}
    assert odd == plain | {3, 5, 9, 17, 33, 65}


def test_the_readings_that_do_not_reproduce_the_paper():
    """Why the documented reading: log2, or the typeset GS in (10), move the optimum."""
    c = phvm.NAMED["rtx2080ti"]

    def optimum_with(t_element):
        return min(phvm.configurations(c), key=lambda cfg: t_element(c, 30_000_000, *cfg))

    def log2_prep(c, k, gs, bs):
        return (k / (bs * gs) * (2 * c.g + c.add + c.mul) + c.s
                + math.log2(bs) * (c.add + 3 * c.s) / c.u_sm)

    def with_log2(c, k, gs, bs):
        prep = log2_prep(c, k, gs, bs)
        return gs * bs / c.cores * prep + c.cores / bs * phvm.t_post(c)

    def with_gs_in_10(c, k, gs, bs):
        prep = phvm.t_prep(c, k, gs, bs)
        return gs * bs / c.cores * prep + c.cores / bs * gs * phvm.t_post(c)

    assert optimum_with(phvm.t_element) == (136, 512)
    assert optimum_with(with_log2) != (136, 512)
    assert optimum_with(with_gs_in_10) != (136, 512)


def test_cli_prints_the_predicted_optimum():
    for name, expected in (("a100-pcie-40gb", "GS=864 BS=256"), ("rtx2080ti", "GS=136 BS=512")):
        out = subprocess.run([sys.executable, "-m", "portgemm.tune", "--model", "phvm",
                              "--constants", name], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert expected in out.stdout


def test_cli_model_sweep_takes_fixed_parameters(any_device, tmp_path):
    import json

    out_json = tmp_path / "sweep.json"
    out = subprocess.run([sys.executable, "-m", "portgemm.tune", "--model", "phvm", "--device",
                          any_device.filter_string, "--sizes", "2x3x5000", "--sweep", "--reps",
                          "1", "--param", "ELEMENT_LAUNCHES=1", "--json", str(out_json)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    record = json.loads(out_json.read_text())[0]
    assert record["predicted"]["ELEMENT_LAUNCHES"] == 1
    assert {p["status"] for p in record["sweep"]} <= {"ok", "invalid"}
    assert any(p["status"] == "ok" for p in record["sweep"])
    two = subprocess.run([sys.executable, "-m", "portgemm.tune", "--model", "phvm", "--constants",
                          "rtx2080ti", "--param", "GS=1,2"], capture_output=True, text=True,
                         timeout=60)
    assert two.returncode == 2 and "one value" in two.stderr
    # a parameter the model's kernel lacks: every point was invalid, an empty table, exit 0
    unknown = subprocess.run([sys.executable, "-m", "portgemm.tune", "--model", "phvm",
                              "--constants", "rtx2080ti", "--param", "NOSUCH=1"],
                             capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "no parameter NOSUCH" in unknown.stderr


def test_sweep_says_why_a_point_does_not_run(any_device):
    from portgemm.tune.sweep import sweep

    too_wide = any_device.max_work_group_size * 2
    found = sweep("phvm", any_device, (2, 3, 500), [(1, too_wide)], reps=1, warmup=0)
    assert found[0].status == "invalid" and "max_work_group_size" in found[0].message


def test_cli_sweep_times_both_cpu_forms(any_device, tmp_path):
    """On a CPU the bandwidth model picks ROWVEC (BS = 1): the sweep times it over its
    groups, and the lanes' form (BS > 1) beside it, the model's point among them."""
    import json

    if any_device.type != "cpu":
        pytest.skip("the CPU's form")
    out_json = tmp_path / "sweep.json"
    out = subprocess.run([sys.executable, "-m", "portgemm.tune", "--model", "tallskinny",
                          "--device", any_device.filter_string, "--sizes", "3x2x20000",
                          "--sweep", "--reps", "1", "--rounds", "2", "--json", str(out_json)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    record = json.loads(out_json.read_text())[0]
    assert record["rounds"] == 2
    assert record["predicted"]["ROWVEC"] == 1 and record["predicted"]["BS"] == 1
    timed = [(p["gs"], p["bs"]) for p in record["sweep"] if p["status"] == "ok"]
    assert (record["predicted"]["GS"], 1) in timed and any(bs > 1 for _, bs in timed)
    assert "the model's" in out.stdout
    # the sweep's fastest and the model's point timed again, in turns, fastest first
    again = [(r["gs"], r["bs"]) for r in record["again"]]
    assert (record["predicted"]["GS"], 1) in again and 2 <= len(again) <= 5
    assert [r["kernel_ms"] for r in record["again"]] == sorted(r["kernel_ms"] for r in record["again"])
    assert "timed again, 5 rounds in turn" in out.stdout


def test_sweep_rounds_keep_each_points_median(monkeypatch):
    """Rounds of the whole sweep, each point's median time and worst error; a point that
    failed in any round stays failed."""
    from portgemm.tune import sweep as sweeping

    rounds = iter([[(1.0, 1e-7, "ok"), (5.0, 1e-7, "ok"), (2.0, 1e-7, "ok")],
                   [(9.0, 3e-7, "ok"), (4.0, 1e-7, "ok"), (None, None, "wrong")],
                   [(2.0, 2e-7, "ok"), (6.0, 1e-7, "ok"), (2.0, 1e-7, "ok")]])

    def one_round(variant, device, size, points, **options):
        return [sweeping.SweepPoint(gs, bs, *seen) for (gs, bs), seen in zip(points, next(rounds))]

    monkeypatch.setattr(sweeping, "sweep", one_round)
    merged = sweeping.sweep_rounds(3, "tallskinny", None, (3, 3, 100), [(1, 1), (2, 1), (4, 1)])
    assert [(p.gs, p.kernel_ms, p.relerr, p.status) for p in merged] == [
        (1, 2.0, 3e-7, "ok"), (2, 5.0, 1e-7, "ok"), (4, None, None, "wrong")]
    no_sweep = subprocess.run([sys.executable, "-m", "portgemm.tune", "--model", "tallskinny",
                               "--rounds", "3"], capture_output=True, text=True, timeout=60)
    assert no_sweep.returncode == 2 and "--rounds goes with" in no_sweep.stderr


def test_cli_show_names_the_shape_class(any_device):
    out = subprocess.run([sys.executable, "-m", "portgemm.tune", "--device",
                          any_device.filter_string, "--sizes", "8x8x1000000,512", "--show"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "shape class tall-skinny (M*N = 64 <= 256" in out.stdout
    assert "shape class medium" in out.stdout


def test_probe_measures_and_keeps(any_device, tmp_path, monkeypatch):
    from portgemm.runtime import probe as probing

    monkeypatch.setattr(probing, "probe_file", lambda: tmp_path / "probes.json")
    measured = probing.probe(any_device)
    assert 0 < measured.add_ns < measured.global_ns and measured.read_gbs > 0.1
    assert (tmp_path / "probes.json").is_file()
    assert probing.probe(any_device) == measured  # from the file, not measured again
    constants = phvm.constants_for(any_device)
    assert constants.g == measured.global_ns and constants.unit == "ns"
    assert phvm.optimum(constants, 5, 5, 1 << 20)[:2] in phvm.configurations(constants, 1 << 20)
    assert constants.odd_grid == (any_device.type == "cpu")
    # a CPU's walk found a run and a group size among those it tried; the model's grid
    # gives them
    walked = {(run, bs) for run, _, bs in probing.walk_points(any_device)}
    assert ((measured.run_steps, measured.group_size) in walked) == (any_device.type == "cpu")
    assert (constants.run, constants.group) == (measured.run_steps, measured.group_size)
    if constants.run:
        gs, bs, _ = phvm.optimum(constants, 5, 5, 1 << 20)
        assert bs == constants.group
        assert gs * bs >= (1 << 20) / constants.run > (gs - 2) * bs


def test_probe_measures_again_what_an_older_probe_kept(any_device, tmp_path, monkeypatch):
    """An entry of an older probe (written before its kernels were corrected) is not
    used: the device is measured again, and the old entry is left for the old code."""
    import json

    from portgemm.runtime import probe as probing

    path = tmp_path / "probes.json"
    monkeypatch.setattr(probing, "probe_file", lambda: path)
    stale = {"global_ns": 2.29, "local_ns": 1.5, "add_ns": 0.5, "mul_ns": 0.76,
             "read_gbs": 2.9, "clock_mhz": 0.0}
    path.write_text(json.dumps({probing.device_key(any_device): stale}))
    assert probing.cached_probe(any_device) is None
    measured = probing.probe(any_device)
    assert measured.global_ns != stale["global_ns"]
    kept = json.loads(path.read_text())
    assert kept[probing.device_key(any_device)] == stale
    assert kept[probing.probe_key(any_device)]["global_ns"] == measured.global_ns
    assert probing.cached_probe(any_device) == measured


def test_groups_do_not_follow_a_probed_bandwidth(tmp_path, monkeypatch):
    """The H100's probe reads 2.9 TB/s, the H200's 4 TB/s, and both want the same counts
    of groups on their 132 SMs: bytes in flight a compute unit, not the bandwidth times a
    latency (which gave one tile of C 64 groups on the H100, and 16 x 16 16 a tile, both
    1.1-1.4x slower). A probe on file changes nothing; fewer compute units ask for fewer
    work-items."""
    import json
    from dataclasses import asdict

    from portgemm.runtime import probe as probing

    path = tmp_path / "probes.json"
    monkeypatch.setattr(probing, "probe_file", lambda: path)
    shapes = [(5, 5, 1 << 21), (8, 8, 1 << 25), (9, 9, 1 << 21), (16, 16, 1 << 25),
              (32, 6, 1 << 20), (1000, 12, 65536)]
    alone = [tallskinny_params(gpu(), *shape)[0] for shape in shapes]
    h100 = probing.Probe(336.0, 14.4, 3.5, 3.6, 2881.7, 1980.0)
    path.write_text(json.dumps({probing.probe_key(gpu()): asdict(h100)}))
    assert probing.cached_probe(gpu()) == h100
    assert [tallskinny_params(gpu(), *shape)[0] for shape in shapes] == alone
    # several tiles: each its share of the compute units (16 x 16 and 32 x 6 in four)
    assert [p["GS"] for p in alone[:5]] == [132, 132, 132, 33, 33]
    # the H100's best count there (bench/results/2026-11-27-h100-short-k)
    assert alone[5]["GS"] == 4
    fewer = tallskinny_params(gpu(compute_units=33), 16, 16, 1 << 21)[0]
    assert fewer["GS"] == 8 and tallskinny_params(gpu(), 16, 16, 1 << 21)[0]["GS"] == 33


def test_paper_model_on_a_device_without_probe(monkeypatch):
    """The GPU path of constants_for, on a described H200 (the probe stubbed)."""
    from portgemm.runtime import probe as probing

    fake = probing.Probe(500.0, 30.0, 2.0, 2.5, 4000.0, 1980.0)
    monkeypatch.setattr(probing, "probe", lambda device, fresh=False: fake)
    constants = phvm.constants_for(gpu())
    assert (constants.sm_num, constants.sms, constants.ws, constants.cores) == (
        132, 2048, 32, 132 * 128)
    gs, bs, _ = phvm.optimum(constants, 8, 8, 33554432)
    assert gs * bs == 2048 * 132 and not constants.odd_grid


def test_named_variant_without_params_takes_the_model(any_device):
    a, b = operands(4, 4, 1 << 16)
    result = portgemm.gemm(a, b, device=any_device, variant="tallskinny")
    expected, _ = tallskinny_params(any_device, 4, 4, 1 << 16)
    assert result.params["GS"] == expected["GS"] and result.source == "explicit"


def test_the_gpu_forms_tree_sum_that_crashes_intels_compiler_is_refused():
    """Intel's CPU compiler segfaulted (the whole process gone) on the GPU form's tree sum
    with big tiles and groups; those parameters are refused there, not elsewhere."""
    intel = gpu(name="AMD EPYC", vendor="Intel(R) Corporation", platform="Intel(R) OpenCL",
                type="cpu", compute_units=2)
    variant = get_variant("tallskinny")
    crashed = variant.resolve({"ROWVEC": 0, "tile_y": 16, "tile_x": 12, "BS": 128})
    assert any("crashes Intel's CPU compiler" in p for p in variant.problems(crashed, intel))
    assert not variant.problems(crashed, gpu())
    for built in ({"ROWVEC": 0, "tile_y": 8, "tile_x": 8, "BS": 256},   # the defaults' size
                  {"ROWVEC": 0, "tile_y": 16, "tile_x": 12, "BS": 128, "REDUCE": 1}):
        assert not [p for p in variant.problems(variant.resolve(built), intel) if "Intel" in p]


def test_the_result_reports_the_parameters_that_ran(device):
    """The tile cut to C, TG to the tiles and GS to the groups K gives work to: what the
    kernels ran, where the result reported what was asked (16 x 16, TG 4, GS 4096)."""
    impl = get_variant("tallskinny")
    asked = {"tile_y": 16, "tile_x": 16, "GS": 4096, "BS": 32, "TG": 4, "REDUCE": 1}
    if impl.problems(impl.resolve(asked), device, 4):
        pytest.skip(f"REDUCE=1 does not run on {device.description}")
    a, b = operands(3, 2, 5000)
    result = portgemm.gemm(a, b, device=device, variant="tallskinny", params=asked)
    assert_close(result.c, a, b)
    ran = {key: result.params[key] for key in ("tile_y", "tile_x", "TG", "GS", "BS")}
    assert ran == {"tile_y": 3, "tile_x": 2, "TG": 1, "GS": 157, "BS": 32}


def test_reported_parameters_run_again_bit_for_bit(device):
    """FLAT's tile cut to a C of one column was reported as FLAT=1 with tile_x 1, which
    resolve refuses: params=r.params failed."""
    a, b = operands(37, 1, 17)
    asked = {"GS": 64, "BS": 1, "ROWVEC": 1, "tile_y": 4, "tile_x": 5, "FLAT": 1}
    first = portgemm.gemm(a, b, device=device, variant="tallskinny", params=asked)
    assert first.params["FLAT"] == 0 and first.params["tile_x"] == 1
    again = portgemm.gemm(a, b, device=device, variant="tallskinny", params=first.params)
    assert np.array_equal(first.c, again.c) and again.params == first.params


def test_groups_along_k_stay_within_the_kernels_int(any_device):
    """At K near 2^31 (a 1 x 1 C, the operands' elements still within the int), GS is
    cut so K + GS*BS stays within it: auto's and the defaults' GS were refused by their
    own plans (phvm from K = 2.136e9). tallskinny's rows (ROWVEC) form a chunk's end
    ROW_CHUNK past a group's last step: a K within it of the limit ran past the int and
    crashed the process, and is refused now."""
    from portgemm.families.base import INT_LIMIT
    from portgemm.families.tallskinny import ROW_CHUNK

    k = INT_LIMIT - 20_000
    for name in ("phvm", "basicmm", "tallskinny"):
        impl = get_variant(name)
        params = impl.effective(1, 1, k, impl.resolve({"GS": 4096, "BS": 256}))
        assert k + params["GS"] * params["BS"] <= INT_LIMIT
        impl.plan(1, 1, k, impl.resolve({"GS": 4096, "BS": 256}))  # no ParameterError
    choice = choose(any_device, 1, 1, k)
    get_variant(choice.variant).plan(1, 1, k, choice.params)
    rows = get_variant("tallskinny").resolve(dict(ROWVEC=1, BS=1, GS=3, tile_y=1, tile_x=1))
    with pytest.raises(portgemm.ParameterError, match=f"\\+ {ROW_CHUNK} = "):
        get_variant("tallskinny").plan(1, 1, INT_LIMIT - 10, rows)
