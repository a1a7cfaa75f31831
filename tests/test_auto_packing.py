"""auto's fitting of a packing family (panel, vec) to the shape: panel's tile refitted
to a narrow C, B read in place for few rows, other families untouched; and auto's
fitted choice right on awkward shapes and layouts on every device."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import portgemm
from portgemm.auto import choose
from portgemm.auto.packing import IN_PLACE_KC, IN_PLACE_ROWS, fit_packing
from portgemm.auto.splitk import RUN_TERMS, run_split
from portgemm.families import get_variant

from conftest import assert_close

PANEL = get_variant("panel")
VEC = get_variant("vec")
# the shipped AVX-512 entries' tile: 8 x 3 of one 16-lane vector, 48 columns a group
ENTRY = dict(PANEL.defaults, tile_y=8, tile_x=3, wg_x=16, KC=512, MB=256, PACKED=1)


@pytest.mark.parametrize("n, tile", [(64, (6, 4)), (32, (8, 2)), (128, (6, 4)),
                                     (100, (6, 4)), (16, (8, 2))])
def test_narrow_c_refits_panel_tile(n, tile):
    fitted, notes = fit_packing(PANEL, ENTRY, 4096, n)
    assert (fitted["tile_y"], fitted["tile_x"]) == tile
    assert fitted["MB"] % fitted["tile_y"] == 0 and 0 <= fitted["MB"] - ENTRY["MB"] < tile[0]
    assert any(f"tile {tile[0]} x {tile[1]} for {n} columns" in note for note in notes)
    PANEL.resolve(fitted)  # a valid point of the family


@pytest.mark.parametrize("n", [1000, 4096, 143])
def test_wide_enough_c_keeps_the_tile(n):
    fitted, notes = fit_packing(PANEL, ENTRY, 4096, n)
    assert fitted == ENTRY and notes == []


@pytest.mark.parametrize("n, wg_x", [(200, 1), (128, 1), (100, 1), (64, 2), (96, 2),
                                     (192, 4), (1000, 4), (600, 4)])
def test_narrow_c_narrows_vec_groups(n, wg_x):
    """vec's groups of 4 work-items of 48 columns (192) shrink where C has at most two
    groups' columns and they pad N by over 10%: to the fewest columns computed, the
    larger group of equal ones (64 columns: 96 with 2 work-items or with 1)."""
    entry = dict(VEC.defaults, tile_x=48, wg_x=4, PACKED=1)
    fitted, notes = fit_packing(VEC, entry, 4096, n)
    assert fitted["wg_x"] == wg_x and (notes == []) == (wg_x == 4)


def test_float64_tile_keeps_its_accumulators():
    """The float64 entry's 4 x 3 (12 accumulators) becomes 6 x 2 for 64 columns, not a
    tile of more accumulators than the registers hold."""
    entry = dict(ENTRY, tile_y=4, MB=128)
    fitted, _ = fit_packing(PANEL, entry, 4096, 64)
    assert (fitted["tile_y"], fitted["tile_x"]) == (6, 2)


@pytest.mark.parametrize("impl", [PANEL, VEC], ids=["panel", "vec"])
def test_few_rows_read_b_in_place(impl):
    entry = ENTRY if impl is PANEL else dict(VEC.defaults, tile_x=48, PACKED=1)
    rows = IN_PLACE_ROWS[impl.name]
    few, notes = fit_packing(impl, entry, rows, 4000)
    assert few["PACKED"] == 0 and any("B read in place" in note for note in notes)
    if impl is PANEL:
        assert few["KC"] == IN_PLACE_KC
    many, notes = fit_packing(impl, entry, rows + 1, 4000)
    assert many == entry and notes == []


@pytest.mark.parametrize("n", [96, 144, 490, 700, 760, 768, 770])
def test_panel_reads_b_in_place_past_a_partial_last_group(n):
    """panel's few rows read B in place whether or not its last group of 48 columns is
    partial (the group reads on into B's next rows, as fast as a whole one)."""
    fitted, notes = fit_packing(PANEL, ENTRY, 100, n)
    assert (fitted["tile_x"] * fitted["wg_x"], fitted["PACKED"]) == (48, 0)


@pytest.mark.parametrize("m, n, itemsize, packed", [
    (12, 4096, 4, 1), (32, 1024, 4, 1), (12, 4000, 4, 0), (8, 4096, 4, 0),
    (16, 2048, 8, 1), (16, 1000, 8, 0), (33, 4000, 4, 1)])
def test_vec_packs_b_of_whole_page_rows(m, n, itemsize, packed):
    """A few rows' B stays in place for vec unless its row pitch is whole pages (4 KiB)
    and more than one tile of rows (8) reads it: there its rows share cache sets."""
    entry = dict(VEC.defaults, tile_y=8, tile_x=48, wg_y=32, wg_x=1, PACKED=1)
    fitted, _ = fit_packing(VEC, entry, m, n, 4096, units=2, itemsize=itemsize)
    assert fitted["PACKED"] == packed


@pytest.mark.parametrize("m", [1, 3, 7])
def test_few_rows_fill_one_vec_work_item(m):
    """A C of fewer rows than vec's tile: all of them in one work-item, one row of
    work-items a group; a C of the tile's rows or more keeps the tile."""
    entry = dict(VEC.defaults, tile_y=8, tile_x=48, wg_y=2)
    fitted, notes = fit_packing(VEC, entry, m, 4096)
    assert (fitted["tile_y"], fitted["wg_y"]) == (m, 1)
    assert any(f"for a C of {m}" in note for note in notes)
    assert VEC.resolve(fitted) == fitted
    kept, _ = fit_packing(VEC, entry, 16, 4096)
    assert (kept["tile_y"], kept["wg_y"]) == (8, 2)


@pytest.mark.parametrize("m, units, wg_y", [(64, 2, 8), (33, 2, 5), (8, 2, 1), (4096, 2, 32),
                                            (1024, 2, 32), (1024, 64, 8), (300, 64, 2),
                                            (96, 1000, 1)])
def test_vec_group_rows_fit_c_and_the_units(m, units, wg_y):
    """vec's group of 32 work-items down M: no more than C's tiles of rows, halved while
    C gives fewer than GROUPS_PER_UNIT groups a compute unit (1024 x 1024 on 64 units:
    22 groups of columns, 16 of rows at 8)."""
    entry = dict(VEC.defaults, tile_y=8, tile_x=48, wg_y=32, wg_x=1, PACKED=1)
    fitted, notes = fit_packing(VEC, entry, m, 1024, units=units)
    assert fitted["wg_y"] == wg_y
    assert (wg_y == 32) == (not any("along M" in note for note in notes))
    assert VEC.resolve(fitted) == fitted


@pytest.mark.parametrize("k, groups", [(1, (2, 4)), (128, (2, 4)), (129, (32, 1)),
                                       (None, (32, 1))])
def test_shallow_k_takes_wide_vec_groups(k, groups):
    """A K of at most SHALLOW_K_MOST (128) writes C more than it multiplies: vec's tall
    group of 32 x 1 becomes 2 x 4; a deeper or unknown K keeps it."""
    entry = dict(VEC.defaults, tile_y=8, tile_x=48, wg_y=32, wg_x=1, PACKED=1)
    fitted, notes = fit_packing(VEC, entry, 4096, 4096, k, units=2)
    assert (fitted["wg_y"], fitted["wg_x"]) == groups
    assert any(f"for K = {k}" in note for note in notes) == (groups == (2, 4))
    wide = dict(entry, wg_y=1, wg_x=8)
    assert fit_packing(VEC, wide, 4096, 4096, 1, units=2)[0] == wide


@pytest.mark.parametrize("m, n, k, itemsize, tile", [
    (2048, 2048, 4, 4, (4, 16)), (307, 2621, 5, 4, (4, 16)), (1024, 1879, 8, 4, (4, 16)),
    (2048, 2048, 9, 4, (8, 3)),     # a K past 8: the entry's tile (4 x 16 1.13-1.49x slower)
    (2048, 2048, None, 4, (8, 3)),  # K not known
    (2048, 2048, 4, 8, (2, 32)),    # float64, C of 32 MB: 0.75x the time of 4 x 3
    (4000, 2000, 5, 8, (2, 32)),
    (2600, 2600, 4, 8, (2, 32)),    # groups of 512 columns pad it 18%: 2 x 32 still, 2x
    (30000, 1100, 4, 8, (8, 3)),    # ... 40%: not taken
    (1024, 2048, 4, 8, (8, 3)),     # float64, C of 16 MB: 0.78-1.29x, not taken
    (2048, 2048, 6, 8, (8, 3)),     # float64, K past 5
    (4096, 64, 4, 4, (6, 4)),       # too narrow for 256 columns a group: _fit_columns' tile
])
def test_a_shallow_k_writes_c_in_long_runs(m, n, k, itemsize, tile):
    """panel, float32, K of at most 8: tiles of 4 rows by 16 vectors, 1 KB runs of C's
    rows a group (1.05-1.67x faster than 8 x 3 in 10 of 12 comparisons on Intel's
    runtime, bench/results/2026-11-27-cpu-xeon207-survey); float64, K of at most 5 and C
    of 32 MB or more, 2 x 32 (bench/results/2026-11-27-cpu-xeon207-float64-shallow)."""
    fitted, notes = fit_packing(PANEL, ENTRY, m, n, k, itemsize=itemsize)
    assert (fitted["tile_y"], fitted["tile_x"]) == tile
    assert any(f"for K = {k}" in note for note in notes) == (tile in ((4, 16), (2, 32)))
    assert PANEL.resolve(fitted) == fitted


@pytest.mark.parametrize("n, tile_x, vw, packed", [(1, 1, 1, 0), (2, 16, 16, 1),
                                                    (16, 16, 16, 1), (17, 32, 16, 1),
                                                    (47, 48, 16, 1), (48, 48, 16, 1)])
def test_narrow_c_narrows_the_vec_tile(n, tile_x, vw, packed):
    """A C narrower than vec's 48 columns a work-item: as few vectors of 16 as cover it;
    one column in a scalar tile with B read in place."""
    entry = dict(VEC.defaults, tile_y=8, tile_x=48, vw=16, wg_y=32, wg_x=1, PACKED=1)
    fitted, notes = fit_packing(VEC, entry, 4096, n, 4096, units=2)
    assert (fitted["tile_x"], fitted["vw"], fitted["PACKED"]) == (tile_x, vw, packed)
    assert any(f"for a C of {n} column" in note for note in notes) == (tile_x < 48)
    assert VEC.resolve(fitted) == fitted


def test_c_narrower_than_a_work_item_keeps_b_packed():
    """In place, a work-item whose columns pass N reads B element by element: a C of
    few rows but fewer columns than a work-item holds keeps B packed."""
    entry = dict(VEC.defaults, tile_x=48, PACKED=1)
    narrow, notes = fit_packing(VEC, entry, 32, 47)
    assert narrow["PACKED"] == 1 and not any("in place" in note for note in notes)
    assert fit_packing(VEC, entry, 32, 48)[0]["PACKED"] == 0


def test_vec_splits_a_deep_k_in_runs(device):
    """vec adds K in sequence: auto splits it in a power of two of runs of at most
    RUN_TERMS steps, keeps a tuned split, and stays within the workspace budget."""
    params = dict(VEC.defaults, tile_x=48)
    assert run_split(device, params, 64, 64, 262144, 4)[0] == 262144 // RUN_TERMS
    assert run_split(device, params, 64, 64, RUN_TERMS, 4)[0] == 1
    split, why = run_split(device, params, 100, 100, RUN_TERMS + 1, 4)
    assert split == 2 and f"{RUN_TERMS // 2 + 1} steps" in why
    assert run_split(device, params, 100, 100, 3 * RUN_TERMS, 4)[0] == 4
    assert run_split(device, dict(params, KSPLIT=3), 64, 64, 262144, 4)[0] == 3
    huge = device.max_mem_alloc_size // 2 // (4096 * 4096 * 4)
    assert run_split(device, params, 4096, 4096, 1 << 30, 4)[0] == max(1, huge)
    chosen = choose(device, 64, 64, 262144)
    if chosen.variant == "vec":  # PoCL's choice for deep K
        assert chosen.params["KSPLIT"] > 1 and "runs of at most" in chosen.reason


def test_other_families_come_back_as_they_are():
    xgemm = get_variant("xgemm")
    params = xgemm.resolve({})
    assert fit_packing(xgemm, params, 7, 5) == (params, [])


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 5000), n=st.integers(1, 5000),
       tile=st.sampled_from([(8, 3), (4, 6), (4, 3), (6, 2)]), mb=st.sampled_from([96, 256]))
def test_fitted_panel_points_are_valid(m, n, tile, mb):
    entry = dict(ENTRY, tile_y=tile[0], tile_x=tile[1], MB=mb // tile[0] * tile[0])
    fitted, _ = fit_packing(PANEL, entry, m, n)
    assert PANEL.resolve(fitted) == fitted
    lanes = fitted["wg_x"]
    padded = -(-n // (fitted["tile_x"] * lanes)) * fitted["tile_x"] * lanes
    before = -(-n // (tile[1] * lanes)) * tile[1] * lanes
    assert padded <= before  # never more columns computed for nothing


@pytest.mark.parametrize("m, n, k, order", [(512, 64, 300, "CC"), (64, 1000, 513, "CC"),
                                            (130, 32, 777, "FC"), (3, 100, 50, "CC"),
                                            (128, 49, 1025, "CF"), (257, 50, 129, "FF"),
                                            # a shallow K in panel's tiles of 16 vectors
                                            (37, 1879, 5, "CC"), (300, 700, 3, "FC"),
                                            (21, 2000, 8, "CF")])
def test_auto_fitted_choice_is_right(device, m, n, k, order):
    """auto runs its fitted choice (whatever the device's family) and gets C right in
    every layout, C poisoned first."""
    rng = np.random.default_rng(m * n)
    a = np.asarray(rng.standard_normal((m, k), dtype=np.float32), order=order[0])
    b = np.asarray(rng.standard_normal((k, n), dtype=np.float32), order=order[1])
    result = portgemm.gemm(a, b, device=device, variant="auto", poison=np.nan)
    assert_close(result.c, a, b)
    assert result.params == choose(device, m, n, k).params


@pytest.mark.parametrize("m, n, k, itemsize", [
    (237, 1021, 2097152, 4), (1620, 2032, 1048576, 4), (3028, 4093, 524288, 8),
    (406, 503, 4194304, 4), (460, 485, 4194304, 8)])
def test_auto_never_packs_past_the_index_limit(any_device, m, n, k, itemsize):
    """B packed in whole panels passed the kernels' 32-bit index limit where B itself
    does not: a call naming no parameters raised ParameterError advising PACKED=0. The
    choice now plans (its operands read in place), on every device."""
    chosen = choose(any_device, m, n, k, itemsize)
    get_variant(chosen.variant).plan(m, n, k, dict(chosen.params), itemsize)
    if chosen.variant == "panel" and k * n > 2**31 - 1 - 256 * k:
        assert chosen.params["PACKED"] == 0 and "index limit" in chosen.reason


@pytest.mark.parametrize("mb", [90, 102])
def test_shallow_tile_keeps_whole_tiles_of_rows(mb):
    """float32's shallow-K tile of 4 rows rounds a tuned MB of 6-row tiles up to whole
    tiles of its rows: MB = 90 was refused at the check after auto's choice, a
    ParameterError from a plain matmul (float64's 2 rows divide every valid MB)."""
    entry = dict(ENTRY, tile_y=6, tile_x=4, MB=mb)
    fitted, notes = fit_packing(PANEL, entry, 300, 512, 4)
    assert fitted["tile_y"] == 4 and any("for K = 4" in note for note in notes)
    assert fitted["MB"] % 4 == 0 and 0 <= fitted["MB"] - mb < 4
    PANEL.resolve(fitted)
