"""The autotuner, its measurement cache, the tuning database and choose()."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from portgemm.errors import ParameterError
from portgemm.runtime.device import Device
from portgemm.runtime.ndrange import NDRange
from portgemm.auto import database, lookup, shapes
from portgemm.families import REGISTRY, get_variant
from portgemm.families.base import LaunchPlan
from portgemm.families.tiled import Tiled
from portgemm.tune import (choose, enumerate_space, estimate, known_params, parse_size, save,
                           save_entries, tolerance, tune)
from portgemm.tune.__main__ import main as cli_main
from portgemm.tune.starts import warm_start

TINY = {"tile_y": [1, 2, 4], "tile_x": [1, 2, 4], "wg_y": [4], "wg_x": [8]}
SIZE = (70, 66, 40)  # not a multiple of any tile: the edges are exercised too


@pytest.fixture
def device(any_device):
    """The first device that builds a trivial kernel (conftest); skips when none does."""
    return any_device


class HalfRows(Tiled):
    """A deliberately broken tiled: with tile_y == 4 its launch covers only half the rows
    of C (faster, and wrong); with tile_x == 4 it reads A as if column-major (finite and
    wrong; with M > K every index stays inside A)."""

    name = "test-broken-tiled"

    def plan(self, m, n, k, params, itemsize=4):
        plan = super().plan(m, n, k, params, itemsize)
        if params["tile_y"] != 4:
            return plan
        rows = math.ceil(math.ceil(m / 2) / params["tile_y"])
        ndrange = NDRange.covering((rows, math.ceil(n / params["tile_x"])),
                                   self.work_group(params))
        return LaunchPlan(ndrange, plan.defines, plan.local_mem_bytes)

    def defines(self, params):
        found = super().defines(params)
        if params["tile_x"] == 4:
            found["A_COLMAJOR"] = 1
        return found


def fake_device(**changes) -> Device:
    fields = dict(name="Acme Turbo 9000", vendor="Acme Inc.", platform="Acme OpenCL",
                  type="gpu", index=0, compute_units=16, max_work_group_size=256,
                  max_work_item_sizes=(256, 256, 64), local_mem_size=32768,
                  global_mem_size=2**32, max_mem_alloc_size=2**30, has_fp64=True,
                  driver_version="1.2.3", opencl_version="OpenCL 3.0")
    fields.update(changes)
    return Device(**fields)


def entry(variant="tiled", shape_class="medium", dtype="float32", gflops=10.0, **params):
    params = params or {"tile_y": 2, "tile_x": 2, "wg_y": 8, "wg_x": 8}
    return {"variant": variant, "shape_class": shape_class, "dtype": dtype,
            "params": params, "gflops": gflops, "sizes": [[1024, 1024, 1024]]}


def write_db(path, records):
    path.write_text(json.dumps({"format": "portgemm-tuning", "version": 1,
                                "devices": records}))
    return path


# --- the tuner on a real device ---------------------------------------------------------

def test_picks_fastest_verified_candidate(device, tmp_path):
    result = tune("tiled", device, [SIZE], space=TINY, reps=2, progress=False,
                  cache_file=tmp_path / "m.jsonl")
    ok = result.ok
    assert len(ok) == 9 and result.measured == 9
    assert result.best is not None
    assert result.best.kernel_ms == min(c.kernel_ms for c in ok)
    for c in ok:
        assert c.relerr <= tolerance(np.float32, SIZE[2])
        assert len(c.records[0].times_ms) == 2
        assert c.kernel_ms == pytest.approx(np.median(c.records[0].times_ms))
    assert "kernel ms" in result.table() and result.best_params == result.best.params


def test_wrong_candidates_are_rejected(device):
    broken = HalfRows()
    assert broken.name not in REGISTRY  # never registered: passed as an instance
    result = tune(broken, device, [SIZE], space=TINY, reps=1, warmup=0, progress=False)
    statuses = {(c.params["tile_y"], c.params["tile_x"]): c for c in result.candidates}
    for (ty, tx), c in statuses.items():
        if ty == 4 or tx == 4:
            assert c.status == "wrong", (ty, tx, c.status, c.relerr)
            assert c.relerr > tolerance(np.float32, SIZE[2])
        else:
            assert c.status == "ok", (ty, tx, c.status, c.message)
    assert math.isinf(statuses[(4, 1)].relerr)            # unwritten rows stay NaN
    assert math.isfinite(statuses[(1, 4)].relerr)         # finite, still wrong
    assert result.best.status == "ok"
    assert result.best.params["tile_y"] != 4 and result.best.params["tile_x"] != 4
    assert result.best.kernel_ms == min(c.kernel_ms for c in result.ok)
    assert "wrong" in result.table()


def test_verified_run_measures_again_what_an_unverified_run_cached(device, tmp_path):
    """An unverified run caches its wrong candidates as `ok` (its tolerance is infinite);
    a verified run on the same cache measures those again and rejects them, where it
    had taken them from the cache and chosen one."""
    space = {**TINY, "tile_y": [1, 2], "tile_x": [4]}  # A read as column-major: finite
    cache = tmp_path / "m.jsonl"
    blind = tune(HalfRows(), device, [SIZE], space=space, reps=1, warmup=0, verify=False,
                 progress=False, cache_file=cache)
    assert [c.status for c in blind.candidates] == ["ok", "ok"]
    checked = tune(HalfRows(), device, [SIZE], space=space, reps=1, warmup=0,
                   progress=False, cache_file=cache)
    assert checked.measured == 2 and checked.from_cache == 0
    assert [c.status for c in checked.candidates] == ["wrong", "wrong"]
    assert checked.best is None
    again = tune(HalfRows(), device, [SIZE], space=space, reps=1, warmup=0,
                 progress=False, cache_file=cache)  # its own verdicts stand
    assert again.from_cache == 2 and again.best is None

def test_a_spent_budget_still_measures_the_warm_start(device):
    """A budget spent before the first candidate (walking a large space can take it all)
    still measures the warm start, so the search saves nothing slower than what auto
    would run; with no warm start nothing is measured, and the summary says so rather
    than that no candidate was right."""
    start = {"tile_y": 2, "tile_x": 2, "wg_y": 4, "wg_x": 8}
    warm = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, budget_s=1e-9,
                first=[start], progress=False)
    assert warm.measured == 1 and warm.best.params == start
    assert "budget of 1e-09 s spent" in warm.stopped
    cold = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, budget_s=1e-9,
                progress=False)
    assert cold.measured == 0 and cold.best is None
    assert "best: none (no candidate was measured: budget of 1e-09 s spent)" in cold.summary()


def test_resumes_from_cache_file(device, tmp_path):
    cache = tmp_path / "resume.jsonl"
    first = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, max_evals=4,
                 progress=False, cache_file=cache)
    assert first.measured == 4 and first.from_cache == 0 and "max_evals" in first.stopped
    assert len(cache.read_text().splitlines()) == 4
    again = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, max_evals=4,
                 progress=False, cache_file=cache)
    assert again.measured == 0 and again.from_cache == 4
    assert again.best.params == first.best.params
    assert again.best.kernel_ms == first.best.kernel_ms
    with open(cache, "ab") as f:  # damaged lines are ignored: bytes that are not
        f.write(b"\xb0\xff\n" + b"[" * 100000 + b"\n")  # UTF-8, JSON nested too deep,
        f.write(b'{"key": "cut short by an interr')  # an interrupted write
    rest = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, progress=False,
                cache_file=cache)
    assert rest.measured == 5 and rest.from_cache == 4
    # the records appended after the cut-off line are each read back, the first one too
    last = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, progress=False,
                cache_file=cache)
    assert last.measured == 0 and last.from_cache == 9


def test_strategies_and_invalid_points(device):
    model = tune("tiled", device, [SIZE], space=TINY, strategy="model", fraction=0.5,
                 reps=1, warmup=0, progress=False)
    timed = [c for c in model.candidates if c.status == "ok"]
    pruned = [c for c in model.candidates if c.status == "skipped"]
    assert len(timed) == 5 and len(pruned) == 4
    assert max(c.predicted for c in timed) <= min(c.predicted for c in pruned)
    assert all("pruned by the model" in c.message for c in pruned)

    picks = [[c.params for c in tune("tiled", device, [SIZE], space=TINY, strategy="random",
                                     seed=3, max_evals=3, reps=1, warmup=0,
                                     progress=False).ok] for _ in range(2)]
    assert len(picks[0]) == 3 and picks[0] == picks[1]

    limited = tune("tiled", device, [SIZE], space=TINY, restrictions=["tile_y <= tile_x"],
                   reps=1, warmup=0, progress=False, max_evals=0)
    invalid = [c for c in limited.candidates if c.status == "invalid"]
    assert len(invalid) == 3 and all("tile_y <= tile_x" in c.message for c in invalid)
    assert limited.invalid_count == 3 and limited.counts()["invalid"] == 3

    warm = {"tile_y": 4, "tile_x": 2, "wg_y": 4, "wg_x": 8}
    for strategy in ("exhaustive", "model"):
        started = tune("tiled", device, [SIZE], space=TINY, strategy=strategy, max_evals=1,
                       first=[{"wg_y": 4096, "wg_x": 4096}, warm], reps=1, warmup=0, progress=False)
        assert [c.params for c in started.ok] == [warm]  # a seed that cannot run is ignored


def test_a_seed_outside_the_space_is_measured_first(device):
    outside = {"tile_y": 2, "tile_x": 2, "wg_y": 8, "wg_x": 8}  # wg_y 8: not in TINY
    started = tune("tiled", device, [SIZE], space=TINY, strategy="random", max_evals=1,
                   first=[outside], reps=1, warmup=0, progress=False)
    assert [c.params for c in started.ok] == [outside]
    refused = tune("tiled", device, [SIZE], space=TINY, strategy="exhaustive", max_evals=1,
                   restrictions=["wg_y == 4"], first=[outside], reps=1, warmup=0,
                   progress=False)
    assert [c.params for c in refused.ok] != [outside]  # the restrictions still hold


def test_a_choice_edited_by_its_caller_does_not_reach_the_next_call(device):
    """choose() remembers its answers; each caller gets params of its own, so an edit
    is not run unchecked by every later auto call of that shape."""
    first = choose(device, 100, 100, 100, sources=())
    kept = dict(first.params)
    first.params.clear()
    assert choose(device, 100, 100, 100, sources=()).params == kept


def test_the_command_line_measures_the_models_choice_first(device, tmp_path, monkeypatch):
    """A search cut short still saves what auto would have run: the bandwidth model's
    tile is fitted to C (here 5 x 7, outside tallskinny's space) and is measured first."""
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, "none")  # no earlier entries to start from
    shape = (5, 7, 3001)
    model = choose(device, *shape, 4, sources=())
    assert model.variant == "tallskinny"
    assert model.params in warm_start(device, get_variant("tallskinny"), [shape])
    target = tmp_path / "db.json"
    code = cli_main(["--device", device.filter_string, "--variant", "tallskinny", "--sizes",
                     "5x7x3001", "--strategy", "random", "--max-evals", "1", "--reps", "1",
                     "--no-cache", "--no-progress", "--database", str(target)])
    assert code == 0
    saved = json.loads(target.read_text())["devices"][0]["entries"]
    assert [e["params"] for e in saved] == [model.params]


def test_space_filters_restrictions_and_device_limits():
    small = fake_device(max_work_group_size=64, max_work_item_sizes=(64, 64, 64))
    points = list(enumerate_space(get_variant("tiled"), small, 4,
                                  {"tile_y": [16], "tile_x": [32], "wg_y": [8], "wg_x": [4, 16]}))
    # the register restriction fails once tile_y and tile_x are known: both wg_x values
    # are cut off as one sub-space of two points
    assert [(p.valid, p.count) for p in points] == [(False, 2)]
    assert "512" in points[0].problem
    points = list(enumerate_space(get_variant("tiled"), small, 4,
                                  {"tile_y": [2], "tile_x": [2], "wg_y": [8], "wg_x": [4, 16]}))
    assert points[0].valid and not points[1].valid
    assert "max_work_group_size" in points[1].problem
    with pytest.raises(ParameterError):
        list(enumerate_space(get_variant("tiled"), small, 4, {"nonsense": [1]}))


def test_model_prefers_fuller_work_groups_and_register_fit():
    cpu = fake_device(type="cpu", compute_units=4)
    tiled = get_variant("tiled")
    narrow = estimate(tiled, {"tile_y": 4, "tile_x": 1, "wg_y": 8, "wg_x": 2}, cpu, 512, 512, 512)
    wide = estimate(tiled, {"tile_y": 4, "tile_x": 1, "wg_y": 1, "wg_x": 16}, cpu, 512, 512, 512)
    spills = estimate(tiled, {"tile_y": 16, "tile_x": 16, "wg_y": 1, "wg_x": 16},
                      cpu, 512, 512, 512)
    assert wide.cost < narrow.cost and wide.simd_fill == 1 and narrow.simd_fill < 1
    assert spills.register_fit < 1 and wide.cost < spills.cost


def test_tolerance_and_sizes():
    assert tolerance(np.float64, 512) < 1e-10 < tolerance(np.float32, 512) < 1e-3
    assert tolerance(np.float32, 4096) > tolerance(np.float32, 64)
    assert parse_size(256) == (256, 256, 256) and parse_size("64x32x16") == (64, 32, 16)
    with pytest.raises(ValueError):
        parse_size("0x3x3")


# --- the tuning database -----------------------------------------------------------------

@pytest.fixture
def acme_dbs(tmp_path):
    dev = fake_device()
    shipped = write_db(tmp_path / "shipped.json", [
        {"match": {"type": "gpu"}, "entries": [entry(tile_y=1, tile_x=1, wg_y=8, wg_x=8)]},
        {"match": {"vendor": "ACME inc.", "type": "gpu"},  # case and spaces do not matter
         "entries": [entry(tile_y=1, tile_x=2, wg_y=8, wg_x=8)]},
        {"match": {"vendor": "Acme Inc.", "name": "Acme  Turbo 9000"},
         "entries": [entry(tile_y=2, tile_x=1, wg_y=8, wg_x=8)]},
        {"match": {"vendor": "Acme Inc.", "name": "Acme Turbo 9000", "driver_version": "1.2.3"},
         "entries": [entry(tile_y=2, tile_x=2, wg_y=8, wg_x=8)]},
    ])
    user = tmp_path / "user.json"
    return dev, [("user", user), ("shipped", shipped)], user


def test_database_precedence_and_fallbacks(acme_dbs):
    dev, sources, _ = acme_dbs
    pick = lambda d, size=1024: choose(d, size, size, size, 4, sources=sources)
    exact = pick(dev)
    assert exact.source == "shipped" and exact.params["tile_y"] == 2 == exact.params["tile_x"]
    assert "exact device match" in exact.reason and "shape class medium" in exact.reason
    by_name = pick(fake_device(driver_version="9.9"))
    assert (by_name.params["tile_y"], by_name.params["tile_x"]) == (2, 1)
    assert "name device match" in by_name.reason
    by_vendor = pick(fake_device(name="Acme Lite", driver_version="9.9"))
    assert (by_vendor.params["tile_y"], by_vendor.params["tile_x"]) == (1, 2)
    assert "vendor-type device match" in by_vendor.reason
    by_type = pick(fake_device(vendor="Other Corp", name="X"))
    assert (by_type.params["tile_y"], by_type.params["tile_x"]) == (1, 1)
    assert "type device match" in by_type.reason
    nothing = pick(fake_device(vendor="Other Corp", type="cpu"))
    assert nothing.source == "model" and "no tuning entry for this device" in nothing.reason
    small = choose(fake_device(vendor="Other Corp", type="cpu"), 256, 256, 256, sources=[])
    assert (nothing.variant, nothing.params) == (small.variant, small.params)
    # a float64 GEMM does not take float32 entries
    assert choose(dev, 1024, 1024, 1024, 8, sources=sources).source == "model"


def test_user_database_overrides_shipped(acme_dbs):
    dev, sources, user = acme_dbs
    write_db(user, [{"match": {"vendor": "Acme Inc.", "name": "Acme Turbo 9000",
                               "driver_version": "1.2.3"},
                     "entries": [entry(tile_y=4, tile_x=4, wg_y=4, wg_x=16)]},
                    {"match": {"type": "gpu"},
                     "entries": [entry(tile_y=8, tile_x=8, wg_y=4, wg_x=8)]}])
    chosen = choose(dev, 1024, 1024, 1024, sources=sources)
    assert chosen.source == "user" and chosen.params["wg_x"] == 16
    # a more specific shipped entry still beats a generic user entry
    other = choose(fake_device(driver_version="9.9"), 1024, 1024, 1024, sources=sources)
    assert other.source == "shipped" and "name device match" in other.reason
    # the user's type-level entry replaces the shipped one for an unknown vendor
    generic = choose(fake_device(vendor="Z", name="Z"), 1024, 1024, 1024, sources=sources)
    assert generic.source == "user" and generic.params["tile_y"] == 8


def test_an_unusable_user_entry_does_not_hide_the_shipped_one(acme_dbs):
    """A user's entry the device cannot run hid the shipped entry of the same variant,
    level and class: auto fell back to the model's default."""
    dev, sources, user = acme_dbs
    exact = {"vendor": "Acme Inc.", "name": "Acme Turbo 9000", "driver_version": "1.2.3"}
    write_db(user, [{"match": exact, "entries": [entry(wg_y=128, wg_x=128)]}])
    chosen = choose(dev, 1024, 1024, 1024, sources=sources)
    assert chosen.source == "shipped" and chosen.params["tile_y"] == 2 == chosen.params["tile_x"]
    assert "user exact entry tiled/medium" in chosen.reason  # the one passed over


def test_an_entry_of_a_tile_fitted_to_c_serves_only_that_c(device, tmp_path):
    """tallskinny compiles C's rows and columns in: an entry tuned at 5 x 5 ran every
    tall-skinny C in 5 x 5 tiles (16 x 16 x 100000 1.8-3.8x slower than the model's)."""
    tuned = choose(device, 5, 5, 100000, sources=[])
    assert tuned.variant == "tallskinny"
    params = {**tuned.params, "GS": tuned.params["GS"] * 2}  # not the model's own
    saved = {**entry("tallskinny", "tall-skinny", **params), "sizes": [[5, 5, 100000]]}
    user = write_db(tmp_path / "user.json", [{
        "match": lookup.device_match(device, "exact"), "entries": [saved]}])
    same_c = choose(device, 5, 5, 300007, sources=[("user", user)])
    assert same_c.source == "user" and same_c.params["GS"] == params["GS"]
    other_c = choose(device, 16, 16, 100000, sources=[("user", user)])
    assert other_c == replace(choose(device, 16, 16, 100000, sources=[]),
                              reason=other_c.reason)
    assert "tuned for C of 5 x 5, not 16 x 16" in other_c.reason


def test_user_entry_of_another_variant_beats_a_faster_shipped_figure(acme_dbs):
    """At one level and class the user's own tuning decides, whatever the variants and
    however high a shipped entry's figure (measured elsewhere, perhaps at another size)."""
    dev, sources, user = acme_dbs
    name = {"vendor": "Acme Inc.", "name": "Acme Turbo 9000"}
    shipped = sources[1][1]
    write_db(shipped, [{"match": name, "entries": [
        entry(variant="naive", gflops=500.0, wg_y=16, wg_x=16),
        entry(gflops=400.0, tile_y=2, tile_x=1, wg_y=8, wg_x=8)]}])
    write_db(user, [{"match": name, "entries": [
        entry(gflops=5.0, tile_y=4, tile_x=4, wg_y=4, wg_x=16),
        entry(gflops=6.0, tile_y=4, tile_x=4, wg_y=8, wg_x=8),
        entry(variant="retired-variant", gflops=99.0)]}])
    chosen = choose(dev, 1024, 1024, 1024, sources=sources)
    assert chosen.source == "user" and chosen.variant == "tiled"
    assert chosen.params["wg_x"] == 8  # the best of the user's usable entries
    assert "retired-variant" in chosen.reason  # the unusable one, passed over
    # a user entry of another class only: the shipped entry of the shape's own class first
    small = write_db(user.with_name("small.json"),
                     [{"match": name, "entries": [entry(shape_class="small")]}])
    assert choose(dev, 1024, 1024, 1024, sources=[("user", small), sources[1]]).source == (
        "shipped")


def test_shape_classes_and_best_variant(tmp_path):
    dev = fake_device()
    match = {"vendor": "Acme Inc.", "name": "Acme Turbo 9000", "driver_version": "1.2.3"}
    dbfile = write_db(tmp_path / "db.json", [{"match": match, "entries": [
        entry(shape_class="small", tile_y=1, tile_x=1, wg_y=4, wg_x=8),
        entry(shape_class="large", tile_y=8, tile_x=8, wg_y=8, wg_x=8, gflops=50.0),
        entry(variant="naive", shape_class="large", gflops=70.0, wg_y=16, wg_x=16),
    ]}])
    sources = [("user", dbfile)]
    assert shapes.shape_class(511, 9, 8) == "small"
    assert shapes.shape_class(512, 25, 8) == "medium"
    assert shapes.shape_class(512, 24, 8) == "skinny"  # few columns of C, many rows
    assert shapes.shape_class(33, 2048, 64) == "large"
    assert shapes.shape_class(32, 2048, 64) == "skinny"  # few rows of C, many columns
    assert shapes.shape_class(8, 8, 2048) == "tall-skinny"  # the aspect counts first
    small = choose(dev, 100, 100, 100, sources=sources)
    assert small.params["tile_y"] == 1 and "shape class small" in small.reason
    large = choose(dev, 4096, 64, 64, sources=sources)
    assert large.variant == "naive"  # the faster of two variants tuned for this class
    near_large = choose(dev, 1800, 1800, 1800, sources=sources)  # medium: none tuned
    assert near_large.variant == "naive" and "nearest tuned class" in near_large.reason
    near_small = choose(dev, 600, 600, 600, sources=sources)
    assert near_small.params == {"tile_y": 1, "tile_x": 1, "wg_y": 4, "wg_x": 8}


def test_invalid_entries_are_skipped_with_reason(tmp_path):
    dev = fake_device()
    match = {"vendor": "Acme Inc.", "name": "Acme Turbo 9000", "driver_version": "1.2.3"}
    dbfile = write_db(tmp_path / "db.json", [
        {"match": match, "entries": [
            entry(variant="retired-variant", gflops=99.0),
            entry(gflops=98.0, tile_y=2, tile_x=2, wg_y=8, wg_x=8, unroll=4),
            entry(gflops=97.0, tile_y=2, tile_x=2, wg_y=32, wg_x=32),  # 1024 > 256
            {"variant": "tiled"},  # malformed
        ]},
        {"match": {"vendor": "Acme Inc.", "name": "Acme Turbo 9000"},
         "entries": [entry(tile_y=4, tile_x=2, wg_y=4, wg_x=8)]},
        {"match": {"name": "only a name"}, "entries": []},  # not a level
    ])
    chosen = choose(dev, 1024, 1024, 1024, sources=[("user", dbfile)])
    assert chosen.params == {"tile_y": 4, "tile_x": 2, "wg_y": 4, "wg_x": 8}
    assert "name device match" in chosen.reason
    assert "'retired-variant' is not registered" in chosen.reason
    assert "no parameter unroll" in chosen.reason
    assert "max_work_group_size 256" in chosen.reason
    assert "not one of the levels" in chosen.reason
    # every entry invalid: the heuristic, with the reasons
    only_bad = write_db(tmp_path / "bad.json", [{"match": match, "entries": [
        entry(variant="retired-variant")]}])
    fallback = choose(dev, 1024, 1024, 1024, sources=[("user", only_bad)])
    assert fallback.source == "model" and "retired-variant" in fallback.reason
    # an unreadable database is passed over, the next one still counts
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    later = choose(dev, 1024, 1024, 1024, sources=[("user", broken), ("shipped", dbfile)])
    assert later.source == "shipped" and "cannot read tuning database" in later.reason
    nested = tmp_path / "nested.json"  # JSON nested past Python's stack: RecursionError
    nested.write_text("[" * 100000 + "]" * 100000)
    later = choose(dev, 1024, 1024, 1024, sources=[("user", nested), ("shipped", dbfile)])
    assert later.source == "shipped" and "cannot read tuning database" in later.reason


def test_entries_of_the_wrong_types_are_skipped(tmp_path):
    """A database edited by hand: fields of the wrong JSON type are skipped with a note,
    never a TypeError from the lookup (sizes 5 or [5], a variant or class as a list)."""
    dev = fake_device()
    match = {"vendor": "Acme Inc.", "name": "Acme Turbo 9000", "driver_version": "1.2.3"}
    good = entry(gflops=1.0, tile_y=4, tile_x=2, wg_y=4, wg_x=8)
    wrong = [{**good, "gflops": 9.0, "sizes": 5}, {**good, "gflops": 9.0, "sizes": [5]},
             {**good, "gflops": 9.0, "variant": ["tiled"]},
             {**good, "gflops": 9.0, "shape_class": ["large"]},
             {**good, "gflops": 9.0, "params": [1, 2]}, "tiled",
             # sizes of fewer than three values, or booleans, broke the tall-skinny reason
             {**good, "gflops": 9.0, "sizes": [[5]]}, {**good, "gflops": 9.0, "sizes": [[]]},
             {**good, "gflops": 9.0, "sizes": [[True, 1, 1]]},
             {**good, "gflops": 9.0, "sizes": [[0, 8, 8]]}]
    # records whose match or entries are of the wrong type: a string's characters
    # were taken as the match's items (a ValueError from every call)
    odd = [{"match": "Intel", "entries": [good]}, {"match": match, "entries": "tiled"},
           {"match": ["vendor"], "entries": []}, "a record"]
    dbfile = write_db(tmp_path / "db.json",
                      odd + [{"match": match, "entries": wrong + [good]}])
    chosen = choose(dev, 1024, 1024, 1024, sources=[("user", dbfile)])
    assert chosen.source == "user" and chosen.params == good["params"]
    assert chosen.reason.count("entry in") == len(wrong)
    assert chosen.reason.count("device record #") == len(odd)


def test_known_params_for_warm_start(acme_dbs):
    dev, sources, _ = acme_dbs
    known = known_params(dev, "tiled", 4, sources)
    assert [(p["tile_y"], p["tile_x"]) for p in known] == [(2, 2), (2, 1), (1, 2), (1, 1)]
    assert known_params(dev, "naive", 4, sources) == []
    assert known_params(dev, "tiled", 8, sources) == []


def test_entry_of_a_device_without_a_driver_version_is_used(tmp_path):
    """A device whose driver version is empty saves an exact-level record that is a
    name-level one (empty fields make no level); auto and the warm start read it back,
    where comparing the empty field too had passed it over without a note."""
    dev = fake_device(driver_version="")
    path = tmp_path / "tuning.json"
    saved = entry(tile_y=4, tile_x=1, wg_y=8, wg_x=8)
    save_entries(path, dev, [saved], level="exact")
    chosen = choose(dev, 1024, 1024, 1024, sources=[("user", path)])
    assert chosen.source == "user" and chosen.params == saved["params"]
    assert known_params(dev, "tiled", 4, [("user", path)]) == [saved["params"]]
    save_entries(path, dev, [entry(tile_y=1, tile_x=4, wg_y=8, wg_x=8)], level="name")
    assert len(json.loads(path.read_text())["devices"]) == 1  # the same record


def test_save_entries_round_trip(tmp_path):
    dev = fake_device()
    path = tmp_path / "sub" / "tuning.json"
    save_entries(path, dev, [entry(tile_y=1, tile_x=1, wg_y=8, wg_x=8)])
    save_entries(path, dev, [entry(tile_y=4, tile_x=1, wg_y=8, wg_x=8),
                                      entry(shape_class="small")], level="exact")
    save_entries(path, dev, [entry(tile_y=1, tile_x=4, wg_y=8, wg_x=8)],
                          level="vendor-type")
    data = json.loads(path.read_text())
    assert [len(r["entries"]) for r in data["devices"]] == [2, 1]
    chosen = choose(dev, 1024, 1024, 1024, sources=[("user", path)])
    assert chosen.params["tile_y"] == 4  # the later save replaced the same key
    cousin = choose(fake_device(name="Acme Lite"), 1024, 1024, 1024, sources=[("user", path)])
    assert cousin.params["tile_x"] == 4 and "vendor-type" in cousin.reason


def test_a_save_keeps_what_auto_passes_over(tmp_path):
    """Records and entries auto skips with a note (a string, a match of null, a note in
    the entries) crashed a save after the whole search (AttributeError, TypeError, a
    KeyError of 'entries'); they are kept as written and the save goes in beside them."""
    dev = fake_device()
    match = lookup.device_match(dev, "exact")
    path = write_db(tmp_path / "db.json", ["a record by hand", {"match": None},
                                           {"match": match, "entries": ["a note I left"]}])
    save_entries(path, dev, [entry(tile_y=2, tile_x=2, wg_y=8, wg_x=8)])
    data = json.loads(path.read_text())
    assert data["devices"][:2] == ["a record by hand", {"match": None}]
    assert data["devices"][2]["entries"][-1] == "a note I left"
    assert choose(dev, 1024, 1024, 1024, sources=[("user", path)]).params["tile_y"] == 2
    no_entries = write_db(tmp_path / "bare.json", [{"match": match}])
    save_entries(no_entries, dev, [entry()])
    assert len(json.loads(no_entries.read_text())["devices"][0]["entries"]) == 1


def test_cli_refuses_a_record_it_cannot_save_into_before_tuning(device, tmp_path,
                                                                monkeypatch, capsys):
    bad = write_db(tmp_path / "user.json", [{"match": lookup.device_match(device, "exact"),
                                             "entries": {"not": "a list"}}])
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(bad))
    with pytest.raises(SystemExit) as info:
        cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                  "--save", "--no-progress", "--no-cache"])
    assert info.value.code == 2 and "not a list" in capsys.readouterr().err


def test_shipped_databases_are_valid():
    for path in database.shipped_database_paths():
        data = database.read_database(path)
        for record in data["devices"]:
            assert lookup.match_level(record["match"]) in lookup.LEVELS
            for e in record["entries"]:
                assert e["shape_class"] in shapes.SHAPE_CLASSES
                get_variant(e["variant"]).resolve(e["params"])


# --- end to end: tune, save, "auto" picks it, the CLI --------------------------------------

def test_saved_result_drives_auto(device, tmp_path, monkeypatch):
    import portgemm

    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(tmp_path / "user.json"))
    result = tune("tiled", device, [SIZE], space=TINY, reps=1, warmup=0, progress=False)
    assert save(result) == tmp_path / "user.json"
    chosen = choose(device, *SIZE)
    assert chosen.source == "user" and chosen.params == result.best.params
    a = np.random.default_rng(1).standard_normal((SIZE[0], SIZE[2])).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((SIZE[2], SIZE[1])).astype(np.float32)
    out = portgemm.gemm(a, b, device=device)
    assert out.variant == "tiled" and out.params == result.best.params
    assert np.allclose(out.c, a @ b, rtol=1e-4, atol=1e-4)


def test_cli_tunes_saves_and_shows(device, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(tmp_path / "user.json"))
    target = tmp_path / "shipped-to-be.json"
    code = cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                     "--only", "tile_y=1,2", "--only", "tile_x=2", "--reps", "1",
                     "--cache", str(tmp_path / "c.jsonl"), "--database", str(target),
                     "--level", "vendor-type", "--no-progress", "--show"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "GFLOPS" in out and "saved tiled for shape classes small" in out
    data = json.loads(target.read_text())
    assert data["devices"][0]["match"] == {"vendor": device.vendor, "type": device.type}
    assert not (tmp_path / "user.json").exists()  # --database wrote elsewhere
    code = cli_main(["--device", device.filter_string, "--sizes", "64,3000", "--show"])
    out = capsys.readouterr().out
    assert code == 0 and "64x64x64" in out and "3000x3000x3000" in out and "because" in out
    assert cli_main(["--device", device.filter_string, "--sizes", "64"]) == 2


@pytest.mark.parametrize("setting", ["none", "Off", " no "])
def test_cli_save_refuses_databases_turned_off(device, tmp_path, monkeypatch, capsys,
                                               setting):
    """PORTGEMM_TUNING_DB=none turns the databases off: --save once wrote a file named
    'none' into the working folder; now it is a mistake, before any work. The program
    cache's words turn it off too ("Off" was a file of that name)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, setting)
    with pytest.raises(SystemExit) as info:
        cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                  "--save", "--no-progress"])
    assert info.value.code == 2
    assert f"PORTGEMM_TUNING_DB={setting!r}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert cli_main(["--device", device.filter_string, "--sizes", "64", "--show"]) == 0
    assert "databases: none read" in capsys.readouterr().out


def test_cli_reads_the_database_before_tuning(device, tmp_path, monkeypatch, capsys):
    """A database that cannot be read is a mistake said before any tuning (it once came
    after the first variant's whole search)."""
    damaged = tmp_path / "user.json"
    damaged.write_text("{not json")
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(damaged))
    with pytest.raises(SystemExit) as info:
        cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                  "--save", "--no-progress", "--no-cache"])
    assert info.value.code == 2
    assert "cannot read tuning database" in capsys.readouterr().err


def test_cli_says_what_each_variant_saved_at_once(device, tmp_path, monkeypatch, capsys):
    """Each variant's save is said when it is made (an interrupted later variant used to
    hide it), and a variant with no correct candidate says nothing was saved."""
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(tmp_path / "user.json"))
    code = cli_main(["--device", device.filter_string, "--variant", "naive,tiled",
                     "--sizes", "64", "--restrict", "wg_x > 1000", "--reps", "1",
                     "--no-progress", "--no-cache", "--save", "--only", "wg_x=2,4"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "nothing saved for naive" in out and "nothing saved for tiled" in out
    interrupted = iter([None, KeyboardInterrupt()])

    def second_variant_interrupted(*args, **kwargs):
        failure = next(interrupted)
        if failure:
            raise failure
        return original(*args, **kwargs)

    import portgemm.tune.__main__ as tune_cli
    original = tune_cli.tune
    monkeypatch.setattr(tune_cli, "tune", second_variant_interrupted)
    code = cli_main(["--device", device.filter_string, "--variant", "naive,tiled",
                     "--sizes", "64", "--reps", "1", "--no-progress", "--no-cache", "--save",
                     "--only", "wg_x=2,4", "--only", "wg_y=2"])
    out = capsys.readouterr().out
    assert code == 130
    assert "saved naive for shape classes small" in out


def test_a_database_that_is_no_regular_file(device, tmp_path, monkeypatch, capsys):
    """PORTGEMM_TUNING_DB=/dev/zero read forever (every matmul hung); a folder where the
    lock file goes failed the save after the whole search. auto passes such a database
    over with its reason; tune --save refuses it before any work."""
    import numpy as np

    import portgemm

    folder = tmp_path / "a folder"
    folder.mkdir()
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(folder))
    with pytest.raises(database.DatabaseError, match="not a regular file"):
        database.read_database(folder)
    c = portgemm.gemm(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32), device=device)
    assert (c.c == 8).all()  # the database passed over (the reason says so where no
    # shipped entry serves the shape)
    (tmp_path / "tuning.json.lock").mkdir()
    for path, says in ((folder, "not a regular file"),
                       (tmp_path / "tuning.json", "cannot lock tuning database")):
        monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(path))
        with pytest.raises(SystemExit) as info:
            cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                      "--save", "--no-progress", "--no-cache"])
        assert info.value.code == 2 and says in capsys.readouterr().err


def test_tolerance_is_for_floats():
    from portgemm.verify import tolerance

    assert tolerance(np.float32, 100) > tolerance(np.float64, 100) > 0
    with pytest.raises(TypeError, match="float32 or float64"):
        tolerance(np.int32, 100)


@pytest.mark.parametrize("argv, words", [
    (["--variant", "tiled", "--only", "tile_x=1", "--only", "tile_x=2"], "tile_x more than once"),
    (["--variant", "tiled", "--param", "tile_x=1", "--param", "tile_x=2"],
     "tile_x more than once"),
    (["--show", "--save"], "--show alone tunes nothing"),
    (["--show", "--database", "x.json"], "--show alone tunes nothing")])
def test_cli_mistakes_that_were_taken_silently(argv, words, capsys):
    """A name given twice kept its last values alone; --save with --show alone saved
    nothing and said nothing."""
    with pytest.raises(SystemExit) as stop:
        cli_main([*argv, "--sizes", "64"])
    assert stop.value.code == 2 and words in capsys.readouterr().err


def test_cli_only_and_param_together_is_a_mistake(device, capsys):
    """--param was silently ignored beside --only."""
    with pytest.raises(SystemExit) as info:
        cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                  "--only", "tile_y=1,2", "--param", "tile_x=4", "--no-progress"])
    assert info.value.code == 2 and "give one of them" in capsys.readouterr().err


def test_measurements_go_to_the_cache_folder_whatever_the_database(tmp_path, monkeypatch):
    """They went beside PORTGEMM_TUNING_DB's file: into the working folder where it was
    'none'. tuning.md says the user cache folder."""
    from portgemm.tune.__main__ import default_cache_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for setting in ("none", str(tmp_path / "elsewhere" / "db.json")):
        monkeypatch.setenv(database.TUNING_DB_ENV_VAR, setting)
        assert default_cache_file() == tmp_path / "cache" / "portgemm" / "measurements.jsonl"


def test_cli_says_where_auto_will_not_run_the_saved_entry(device, tmp_path, monkeypatch,
                                                           capsys):
    """A rule of auto's may pick another family for a tuned size (the AVX-512 shallow-K
    rule took float64 600 x 600 x 32 from a saved tiled entry), and the save said
    nothing of it."""
    import portgemm.tune.__main__ as tune_cli
    from portgemm.auto.choice import Choice

    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, str(tmp_path / "user.json"))
    monkeypatch.setattr(tune_cli, "choose", lambda *args, **kwargs: Choice(
        "naive", {"wg_y": 8, "wg_x": 8}, "a rule of the test", "model"))
    code = cli_main(["--device", device.filter_string, "--variant", "tiled", "--sizes", "64",
                     "--only", "tile_y=1,2", "--only", "tile_x=2", "--reps", "1",
                     "--no-progress", "--no-cache", "--save"])
    out = capsys.readouterr().out
    assert code == 0
    assert "note: at 64x64x64 auto runs naive" in out and "a rule of the test" in out


def test_cli_model_predicts_in_the_dtype_given(device, monkeypatch, capsys):
    """--model tallskinny --dtype float64 printed float32's choice (its GS differs)."""
    from portgemm.auto.tallskinny import tallskinny_params
    from portgemm.tune import predict

    monkeypatch.setattr(predict, "probe", lambda device: "(probe skipped)")
    size = (8, 8, 4194304)
    assert cli_main(["--model", "tallskinny", "--device", device.filter_string, "--sizes",
                     "x".join(map(str, size)), "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    wide, narrow = tallskinny_params(device, *size, 8)[0], tallskinny_params(device, *size)[0]
    assert f"GS={wide['GS']} BS={wide['BS']} " in out
    assert (wide["GS"], wide["BS"]) != (narrow["GS"], narrow["BS"])  # the test can fail


@pytest.mark.parametrize("m, n, k", [(130, 32, 777), (128, 49, 1025), (100, 100, 1100)])
def test_auto_splits_k_into_the_layers_the_plan_runs(m, n, k):
    """The split model's KSPLIT of 8 or 16 over K of 13-18 slabs ran as fewer layers
    (a layer past K would only write zeros): the choice said one KSPLIT, the result
    another (the H100's suite: 8 against 7)."""
    dev = fake_device()
    chosen = choose(dev, m, n, k, sources=[])
    impl = get_variant(chosen.variant)
    assert chosen.params["KSPLIT"] > 1 and "cut to the" in chosen.reason
    assert impl.effective(m, n, k, chosen.params) == chosen.params


@pytest.mark.parametrize("restriction, says", [("tile_y <== 2", "not an expression"),
                                               ("tile_q <= 2", "no parameter tile_q")])
def test_tune_refuses_a_restriction_no_point_could_meet(device, restriction, says):
    """tune()'s restrictions: a SyntaxError escaped, and a misspelt name made every point
    invalid (best None) without a word; the CLI said so, the API did not."""
    with pytest.raises(ValueError, match=says):
        tune("tiled", device, [SIZE], space=TINY, restrictions=[restriction], progress=False)


@pytest.mark.parametrize("setting", ["yes", "ON", " 1 ", "true"])
def test_a_path_setting_that_says_on_keeps_the_default_place(tmp_path, monkeypatch, setting):
    """PORTGEMM_PROGRAM_CACHE=yes and PORTGEMM_TUNING_DB=yes were paths: a folder and a
    file named 'yes' in the working folder."""
    from portgemm.runtime import program_cache

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(program_cache.PROGRAM_CACHE_ENV_VAR, setting)
    monkeypatch.setenv(database.TUNING_DB_ENV_VAR, setting)
    assert program_cache.cache_folder() == tmp_path / "cache" / "portgemm" / "programs"
    assert database.user_database_path() == tmp_path / "cache" / "portgemm" / "tuning.json"
