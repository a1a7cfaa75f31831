"""An untuned device: what auto picks from the device's properties, and --quick.

The model default is chosen by the kind of compiler (portgemm.auto.compiler); the quick
tune searches that family near that start and saves one entry per size class.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_tune import fake_device

import portgemm
from portgemm.auto import choose
from portgemm.auto.compiler import compiler_kind
from portgemm.auto.default import default_choice, ordinary_candidates
from portgemm.auto.packing import fit_packing
from portgemm.auto.shapes import SIZE_CLASSES
from portgemm.families import get_variant
from portgemm.families.wgmma import runs_wgmma
from portgemm.tune import __main__ as tune_cli
from portgemm.tune.quick import quick_entries, quick_tune
from portgemm.verify import reference, relative_error, tolerance

POCL = dict(type="cpu", vendor="GenuineIntel", platform="Portable Computing Language",
            name="cpu-x86-64", max_work_group_size=4096, local_mem_size=2**19)


@pytest.mark.parametrize("changes, kind", [
    ({}, "gpu"),
    (POCL, "code-vectorising"),
    (dict(type="cpu", vendor="Intel(R) Corporation", platform="Intel(R) OpenCL"),
     "work-item-vectorising"),
])
def test_compiler_kind_from_platform_and_type(changes, kind):
    assert compiler_kind(fake_device(**changes)) == kind


@pytest.mark.parametrize("width, itemsize, rows, columns, vw", [
    (16, 4, 8, 48, 16), (8, 4, 4, 16, 8), (4, 4, 4, 16, 8),
    # a double's vector takes two registers: half the rows (PoCL, AVX-512: 1.27-1.50x
    # faster than 8 x 48, bench/results/2026-11-27-cpu-xeon207-pocl-float64)
    (16, 8, 4, 48, 16), (8, 8, 2, 16, 8)])
def test_pocl_default_is_vec_as_wide_as_the_native_simd(width, itemsize, rows, columns, vw):
    device = fake_device(**POCL, native_vector_width=width)
    variant, params, reason = default_choice(device, 1024, 1024, 1024, itemsize)
    assert variant == "vec" and "code-vectorising" in reason
    assert (params["tile_y"], params["tile_x"], params["vw"]) == (rows, columns, vw)
    assert params["PACKED"] == 1
    assert not get_variant("vec").problems(params, device, itemsize)


def intel_cpu(width=16):
    return fake_device(type="cpu", vendor="Intel(R) Corporation", platform="Intel(R) OpenCL",
                       max_work_group_size=8192, max_work_item_sizes=(8192, 8192, 8192),
                       local_mem_size=262144, native_vector_width=width)


def test_gpu_default_is_the_xgemm_preset():
    gpu = fake_device(local_mem_size=65536)
    xgemm = get_variant("xgemm")
    variant, params, _ = default_choice(gpu, 1024, 1024, 1024, 4)
    assert variant == "xgemm" and params == xgemm.resolve(xgemm.preset(gpu))


@pytest.mark.parametrize("width, dtype_size, tile, lanes", [
    (16, 4, (8, 3), 16),   # AVX-512: 24 accumulators of 32 registers, 16 floats each
    (16, 8, (4, 3), 16),   # 16 doubles take two registers: half the rows
    (8, 4, (6, 2), 8),     # AVX2's 16 registers: 12 accumulators
    (8, 8, (3, 2), 8),
    (1, 4, (6, 2), 8),     # a width no SIMD unit has: 8
])
def test_intel_cpu_default_is_panel_as_wide_as_the_simd(width, dtype_size, tile, lanes):
    cpu = intel_cpu(width)
    variant, params, reason = default_choice(cpu, 2048, 2048, 2048, dtype_size)
    assert variant == "panel" and "work-item-vectorising" in reason
    assert (params["tile_y"], params["tile_x"], params["wg_x"]) == (*tile, lanes)
    assert params["MB"] % params["tile_y"] == 0
    assert not get_variant("panel").problems(params, cpu, dtype_size)


@pytest.mark.parametrize("width, dtype_size, preset", [
    (16, 4, "CPU_AVX512_DEFAULTS"),   # AVX-512: 8 x 3 accumulators a work-item
    (16, 8, "CPU_DEFAULTS"),          # in float64 its 24 accumulators take 48 registers
    (8, 4, "CPU_DEFAULTS"),           # AVX2's 16 registers: 4 x 4
])
def test_intel_cpu_xgemm_fallback_follows_the_simd_width(width, dtype_size, preset):
    """After panel, xgemm's preset for the SIMD width (for a device whose limits panel's
    group breaks)."""
    from portgemm.families import xgemm as family

    candidates = ordinary_candidates(intel_cpu(width), dtype_size)
    assert candidates[0][0] == "panel"
    variant, params, reason = candidates[1]
    assert variant == "xgemm" and params == getattr(family, preset)
    assert ("cpu-avx512" in reason) == (preset == "CPU_AVX512_DEFAULTS")


def test_gpu_with_little_local_memory_keeps_the_tiles_single_buffered():
    small = fake_device(local_mem_size=32768)
    xgemm = get_variant("xgemm")
    preset = xgemm.resolve(xgemm.preset(small))
    assert xgemm.problems(preset, small, 4)  # double-buffered it needs 33536 bytes
    variant, params, reason = default_choice(small, 1024, 1024, 1024, 4)
    assert variant == "xgemm" and "single-buffered" in reason
    assert params == {**preset, "DOUBLE_BUFFER": 0} and not xgemm.problems(params, small, 4)
    tiny = fake_device(local_mem_size=16384)
    variant, params, reason = default_choice(tiny, 1024, 1024, 1024, 4)
    assert variant == "xgemm" and params["MWG"] < preset["MWG"]


def test_device_too_small_for_every_family_falls_back_to_naive():
    tiny = fake_device(max_work_group_size=1, max_work_item_sizes=(1, 1, 1), local_mem_size=0)
    variant, params, reason = default_choice(tiny, 64, 64, 64, 4)
    assert (variant, params) == ("naive", {"wg_y": 1, "wg_x": 1}) and "naive" in reason


def test_no_database_auto_is_the_model_default_and_correct(device, monkeypatch):
    monkeypatch.setenv("PORTGEMM_TUNING_DB", "none")
    portgemm.clear_caches()
    rng = np.random.default_rng(3)
    for m, n, k in [(1, 1, 1), (97, 131, 61), (256, 256, 256)]:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        result = portgemm.gemm(a, b, device=device)
        assert result.source == "model"
        if min(m, n, k) > 1:
            assert result.variant == ordinary_candidates(device)[0][0]
        assert relative_error(result.c, reference(a, b)) <= tolerance(np.float32, k)


def test_quick_tune_measures_the_start_and_saves_every_size_class(device, tmp_path):
    result = quick_tune(device, size=32, budget_s=4, progress=False)
    family, start, _ = ordinary_candidates(device)[0]
    assert result.variant == family and result.best is not None
    measured = [c.params for c in result.ok]
    assert get_variant(family).resolve(start) in measured  # the start is always timed
    entries = quick_entries(result)
    assert [e["shape_class"] for e in entries] == list(SIZE_CLASSES)
    assert all(e["params"] == result.best.params for e in entries)


def test_quick_cli_saves_and_auto_uses_it(device, tmp_path, capsys):
    database = tmp_path / "user.json"
    assert tune_cli.main(["--quick", "--device", device.filter_string, "--sizes", "32",
                          "--budget", "4", "--database", str(database), "--no-cache",
                          "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "saved" in out and "variant='auto' runs it where" in out
    assert "note:" not in out  # a database auto does not read (--database): no notes
    saved = json.loads(database.read_text())["devices"]
    entry = saved[0]["entries"][0]
    for size in (64, 1024, 4096):  # small, medium and large all take it
        chosen = choose(device, size, size, size, 4, sources=[("user", database)])
        if "pads C" in chosen.reason:
            # a GPU's entry whose tile pads C 1.5x or more gives way to its family's tile
            # that fits C best (auto/choice.py: NARROW_PADDING): a 128 x 128 tile at 64;
            # where wgmma runs, xgemm's 64 x 64 then runs as wgmma's (choice.py:
            # SQUARE_64_MOST_K; the quick tune saves one tile or the other by its timing)
            as_wgmma = "taken in wgmma's 64 x 64 tile" in chosen.reason
            assert compiler_kind(device) == "gpu"
            assert not as_wgmma or (entry["variant"] == "xgemm" and runs_wgmma(device))
            assert chosen.variant == ("wgmma" if as_wgmma else entry["variant"])
            continue
        # the entry as saved and fitted to the shape (a packing family's tile and
        # packing), except that auto may split K where C has few tiles for the device (a
        # GPU's small class): the entry's KSPLIT 1 says "not decided"
        params = fit_packing(get_variant(entry["variant"]), entry["params"], size, size,
                             size, device.compute_units, 4)[0]
        split = chosen.params.get("KSPLIT", 1)
        assert chosen.source == "user" and chosen.params == {**params, "KSPLIT": split} \
            if "KSPLIT" in params else chosen.params == params
        assert split == 1 or "KSPLIT=" in chosen.reason


def test_quick_cli_says_where_auto_will_not_run_the_saved_entry(device, tmp_path,
                                                                 monkeypatch, capsys):
    """The quick tune's save said "variant='auto' uses it from now on" even where a rule
    of auto's picks another family at the size it measured."""
    from portgemm.auto.choice import Choice

    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "user.json"))
    monkeypatch.setattr(tune_cli, "choose", lambda *args, **kwargs: Choice(
        "naive", {"wg_y": 8, "wg_x": 8}, "a rule of the test", "model"))
    assert tune_cli.main(["--quick", "--device", device.filter_string, "--sizes", "32",
                          "--budget", "2", "--save", "--no-cache", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.count("note: at 32x32x32 auto runs naive") == 1 and "a rule of the test" in out


@pytest.mark.parametrize("extra", [["--variant", "xgemm"], ["--model", "phvm"],
                                   # its own search: these were ignored without a word
                                   ["--strategy", "random"], ["--max-evals", "1"],
                                   ["--only", "tile_x=4"], ["--param", "tile_x=4"],
                                   ["--restrict", "nonsense =="]])
def test_quick_refuses_a_variant_or_model(extra, capsys):
    with pytest.raises(SystemExit) as stop:
        tune_cli.main(["--quick", *extra])
    assert stop.value.code == 2 and "--quick" in capsys.readouterr().err


def test_quick_tune_ends_with_a_showdown(device, monkeypatch):
    """The search's fastest few and the start are timed again in turn, and the lowest
    median wins (the start unless beaten by START_MARGIN), whatever one noisy pass of the
    search said."""
    from portgemm.tune import measure as measuring, quick
    from portgemm.tune.results import Candidate, Record, TuneResult

    def candidate(tile_x, ms):
        params = {"tile_y": 2, "tile_x": tile_x, "wg_y": 1, "wg_x": 1}
        return Candidate(params, "ok", [Record(params, (32, 32, 32), "ok", kernel_ms=ms)])

    fast, faster, start = candidate(4, 1.1), candidate(2, 1.0), candidate(8, 5.0)
    slow = [candidate(x, 2.0 + x / 100) for x in (16, 32, 64)]
    result = TuneResult("tiled", device, [(32, 32, 32)], "float32", "model",
                        [faster, fast, start, *slow], faster, 6, 6, 0, 1.0)
    again = {2: 2.0, 4: 1.2, 8: 0.9, 16: 3.0, 32: 3.0, 64: 3.0}
    timed = []

    def fake_measure(queue, variant, params, work, reps, warmup):
        timed.append(params["tile_x"])
        ms = again[params["tile_x"]]
        return Record(dict(params), work.size, "ok", kernel_ms=ms, times_ms=[ms] * reps)

    monkeypatch.setattr(measuring, "measure", fake_measure)
    picked = quick.showdown(result, start.params)
    assert picked.best.params == start.params and picked.best.kernel_ms == 0.9
    assert "showdown of 5" in picked.strategy
    # what decided it is shown: the table ranks by the search's times, not the showdown's
    assert [(p["tile_x"], ms) for p, ms in picked.showdown] == [(2, 2.0), (4, 1.2), (16, 3.0),
                                                                (32, 3.0), (8, 0.9)]
    assert "showdown of the fastest" in picked.summary() and "0.9000" in picked.summary()
    # the four fastest of the search and the start, in turn, the order rotating
    assert timed == [2, 4, 16, 32, 8, 4, 16, 32, 8, 2, 16, 32, 8, 2, 4]
    # without the start among them, the fastest of the four again
    assert quick.showdown(result, None).best.params == fast.params
    # the start keeps its place against a challenger less than START_MARGIN faster ...
    again.update({8: 1.0, 4: 1.0 - quick.START_MARGIN / 2})
    kept = quick.showdown(result, start.params)
    assert kept.best.params == start.params
    assert "the start kept unless 5% slower" in kept.summary()  # why the lowest lost
    # ... and yields to a clearly faster one
    again[4] = 1.0 - 2 * quick.START_MARGIN
    assert quick.showdown(result, start.params).best.params == fast.params


def test_showdown_knows_a_start_that_leaves_defaults_out(device, monkeypatch):
    """PoCL's vec start has no KSPLIT, the candidates' resolved params do: the start is
    still found among them, timed in the showdown and kept by its margin (it was never
    recognised, so a noisy pass of the search could drop it)."""
    from portgemm.tune import measure as measuring, quick
    from portgemm.tune.results import Candidate, Record, TuneResult

    vec = get_variant("vec")
    start = {"tile_y": 8, "tile_x": 48, "vw": 16, "wg_y": 32, "wg_x": 1, "PACKED": 1}

    def candidate(tile_y, ms):
        params = vec.resolve({**start, "tile_y": tile_y})
        return Candidate(params, "ok", [Record(params, (32, 32, 32), "ok", kernel_ms=ms)])

    ran = [candidate(y, 1.0 + y / 100) for y in (1, 2, 4, 6)] + [candidate(8, 9.0)]
    result = TuneResult("vec", device, [(32, 32, 32)], "float32", "model", ran, ran[0],
                        5, 5, 0, 1.0)
    again = {1: 1.0 - quick.START_MARGIN / 2, 2: 2.0, 4: 2.0, 6: 2.0, 8: 1.0}

    def fake_measure(queue, variant, params, work, reps, warmup):
        ms = again[params["tile_y"]]
        return Record(dict(params), work.size, "ok", kernel_ms=ms, times_ms=[ms] * reps)

    monkeypatch.setattr(measuring, "measure", fake_measure)
    picked = quick.showdown(result, start)
    assert "showdown of 5 (the start kept" in picked.strategy
    assert picked.best.params == vec.resolve(start)
