"""python -m portgemm.experiments: every experiment runs (in the tests' tiny mode) and
writes its JSON, table and plot; wrong and skipped points are kept and marked; the
table shows the report's numbers; without matplotlib the rest is still written."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pytest

import portgemm

from portgemm.errors import ParameterError
from portgemm.experiments import experiments, get, run_experiment, select
from portgemm.experiments import measure
from portgemm.experiments.__main__ import main
from portgemm.experiments.budget import Budget
from portgemm.experiments.record import Record
from portgemm.experiments.runner import command_line
from portgemm.experiments.spec import MODES, Experiment, PlotSpec, Point
from portgemm.experiments.table import markdown_table

TINY = MODES["tiny"]
RECORD_FIELDS = {"device", "params", "m", "n", "k", "time_ms", "kernel_ms", "wall_ms",
                 "gflops", "relerr", "status", "seed"}
DEVICE_EXPERIMENTS = {"000-device-size-scaling", "000-workgroup-sweep",
                      "000-tiled-block-sweep", "001-phvm-vs-vendor", "001-model-sweep",
                      "001-gs-bs-grid", "002-device-ladder", "003-tile-sweep",
                      "003-length-sweep", "004-tile-width"}


def test_list_prints_one_experiment_a_line_name_first(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    names = [line.split()[0] for line in lines]
    assert names == list(experiments())
    assert {"000-size-scaling", "000-blockl-sweep", "003-tile-sweep", "004-tile-width",
            "002-device-ladder"} <= set(names)
    assert all(re.fullmatch(r"\d{3}-[a-z0-9-]+", name) for name in names)
    assert all(len(line.split(None, 1)) == 2 for line in lines)  # what it sweeps follows


def test_registry_names_begin_with_their_module_seed_and_groups_select():
    import importlib

    from portgemm.experiments.registry import SEED_MODULES

    for module in SEED_MODULES:
        seed = module.rsplit("seed", 1)[1][:3]
        names = [e.name for e in importlib.import_module(module).EXPERIMENTS]
        assert names and all(name.startswith(seed + "-") for name in names)
    assert {e.name for e in select("device", TINY)} == DEVICE_EXPERIMENTS
    assert {e.name for e in select("host", TINY)} == set(experiments()) - DEVICE_EXPERIMENTS
    assert [e.name for e in select("003-tile-sweep,000-blockl-sweep", TINY)] == [
        "003-tile-sweep", "000-blockl-sweep"]
    with pytest.raises(ParameterError, match="known"):
        get("999-nothing")


@pytest.mark.parametrize("name", list(experiments()))
def test_every_experiment_writes_json_table_and_plot(name, any_device, tmp_path):
    experiment = get(name)
    outcome = run_experiment(experiment, device=any_device.filter_string, mode="tiny",
                             out=tmp_path, progress=False)
    data = json.loads((tmp_path / f"{name}.json").read_text())
    assert data["experiment"] == name and data["mode"] == "tiny"
    records = data["records"]
    assert len(records) == len(experiment.plan(TINY, any_device))  # one a point, none dropped
    for r in records:
        assert RECORD_FIELDS <= set(r)
        if r["status"] == "ok":
            assert r["time_ms"] > 0 and r["gflops"] > 0
            assert r["relerr"] <= r["tolerance"]
        else:
            assert r["status"] == "skipped" and r["reason"]  # only the planned ones here
    assert sum(r["status"] == "ok" for r in records) >= len(records) - 2
    md = (tmp_path / f"{name}.md").read_text()
    assert f"run {name}" in md and "--mode tiny" in md  # the command that reproduces it
    assert md.count("\n|") >= len(records) + 2          # header, rule, one row a point
    assert f"![{name}]({name}.png)" in md
    assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert outcome.plot_marks == {"wrong": 0, "skipped": sum(r["status"] != "ok" for r in records)}


def test_an_experiment_whose_every_point_failed_is_status_1(any_device, tmp_path,
                                                           monkeypatch, capsys):
    """Every point failed (a device that builds nothing: PoCL on some CPUs) once ended
    with status 0, as if the experiment had run."""
    def refused(a, b, **kwargs):
        raise portgemm.BuildError("refused for the test", "")

    monkeypatch.setattr(measure, "gemm", refused)
    code = main(["run", "004-tile-width", "--mode", "tiny", "--device",
                 any_device.filter_string, "--out", str(tmp_path), "--no-progress"])
    assert code == 1
    assert "no point ran in 004-tile-width" in capsys.readouterr().err


def test_list_into_a_closed_pipe_ends_quietly():
    """``experiments list | head -1``: the reader gone, no traceback and status 0."""
    import os
    import subprocess

    read, write = os.pipe()
    os.close(read)
    run = subprocess.run([sys.executable, "-m", "portgemm.experiments", "list"], stdout=write,
                         stderr=subprocess.PIPE, text=True)
    os.close(write)
    assert run.returncode == 0 and run.stderr == ""


def test_a_wrong_point_is_marked_in_table_json_and_plot(any_device, tmp_path, monkeypatch,
                                                       capsys):
    """A kernel that returns a wrong C: the point stays, marked, and the command fails."""
    real_gemm = measure.gemm

    def broken(a, b, **kwargs):
        result = real_gemm(a, b, **kwargs)
        if kwargs["variant"] == "naive" and kwargs["params"]["wg_x"] == 8:
            result.c = result.c.copy()
            result.c[0, 0] += 1.0
        return result

    monkeypatch.setattr(measure, "gemm", broken)
    code = main(["run", "004-tile-width", "--mode", "tiny", "--device",
                 any_device.filter_string, "--out", str(tmp_path), "--no-progress"])
    assert code == 1
    records = json.loads((tmp_path / "004-tile-width.json").read_text())["records"]
    wrong = [r for r in records if r["status"] == "WRONG"]
    assert len(records) == 4 and len(wrong) == 1
    assert wrong[0]["variant"] == "naive" and wrong[0]["x"] == 8
    assert wrong[0]["time_ms"] > 0 and wrong[0]["relerr"] > wrong[0]["tolerance"]
    row = next(line for line in (tmp_path / "004-tile-width.md").read_text().splitlines()
               if line.startswith("|") and "**WRONG**" in line)
    assert "global memory" in row and "relative error" in row
    assert "1 WRONG" in capsys.readouterr().out
    # tiny mode times no repeats: the table's times are not medians, and it says so
    assert "4 of 4 points timed once" in (tmp_path / "004-tile-width.md").read_text()

    outcome = run_experiment(get("004-tile-width"), device=any_device.filter_string,
                             mode="tiny", out=tmp_path, progress=False)
    assert outcome.plot_marks["wrong"] == 1


def test_without_matplotlib_tables_and_json_are_written(any_device, tmp_path, monkeypatch,
                                                        capsys):
    (tmp_path / "003-length-sweep.png").write_bytes(b"stale")  # from an earlier run
    # loaded before it is hidden, so the same module comes back: a fresh one beside the
    # old one's submodules (matplotlib.pyplot) breaks every later test that plots
    import matplotlib
    monkeypatch.setitem(sys.modules, "matplotlib", None)       # import matplotlib fails
    code = main(["run", "003-length-sweep", "--mode", "tiny", "--device",
                 any_device.filter_string, "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    assert not (tmp_path / "003-length-sweep.png").exists()
    assert json.loads((tmp_path / "003-length-sweep.json").read_text())["records"]
    md = (tmp_path / "003-length-sweep.md").read_text()
    assert 'pip install "portgemm[plot]"' in md and "| inreg, tile 2x2 |" in md
    assert 'pip install "portgemm[plot]"' in capsys.readouterr().out

    monkeypatch.setitem(sys.modules, "matplotlib", matplotlib)  # back: draw from the JSON
    assert main(["redraw", "003-length-sweep", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "003-length-sweep.png").exists()
    md = (tmp_path / "003-length-sweep.md").read_text()
    assert "![003-length-sweep](003-length-sweep.png)" in md


def test_a_point_predicted_over_budget_is_skipped_and_kept(tmp_path):
    """The budget rule: the 1300^3 point is predicted from the 256^3 one and skipped."""
    def points(mode):
        return [Point("ikj", n, "serial-ikj", (n, n, n), on="host") for n in (256, 1300)]

    experiment = Experiment("999-budget", "test", "test", "wall", points,
                            PlotSpec(logx=False), reading="test")
    outcome = run_experiment(experiment, mode="tiny", out=tmp_path, budget_s=1e-6,
                             progress=False)
    small, large = outcome.records
    assert small.status == "ok"
    assert large.status == "skipped" and large.reason.startswith("predicted")
    assert large.predicted_s == pytest.approx(small.wall_ms / 1e3 * (1300 / 256) ** 3, rel=1e-6)
    assert "predicted" in (tmp_path / "999-budget.md").read_text()
    assert outcome.plot_marks["skipped"] == 1


def test_budget_predicts_from_flops_and_spends_the_total():
    now = [0.0]
    budget = Budget(MODES["quick"], point_s=10.0, clock=lambda: now[0])
    key = ("device", "naive", ())
    assert budget.predict(key, 2e9) is None
    budget.learn(key, (1024, 1024, 1024), 1.0)
    seconds, basis = budget.predict(key, 2.0 * 2048 ** 3)
    assert seconds == pytest.approx(8.0) and "1024x1024x1024" in basis
    assert budget.over_point((8.0, basis)) == ""
    assert "predicted 80 s" in budget.over_point((80.0, basis))
    assert budget.over_total() == ""
    now[0] = 111.0
    assert "110 s time limit" in budget.over_total()


def test_tables_put_the_reports_numbers_beside_ours():
    """The full runs' points carry the report's tables; the table prints them."""
    def table_of(name, mode="full"):
        experiment = get(name)
        records = [Record.for_point(experiment, p, device="d", backend="b")
                   for p in experiment.points(MODES[mode])]
        return [r.seed for r in records], markdown_table(experiment, records)

    seeds, table = table_of("002-device-ladder")
    assert "report (%)" in table and "108.47%" in table and "11.26%" in table
    assert sorted(s for s in seeds if s is not None) == sorted(
        [100.0, 11.26, 65.25, 62.97, 82.90, 81.88, 93.25, 98.06, 104.44, 108.47])
    seeds, table = table_of("004-tile-width")
    assert seeds == [291.251, 253.342, 209.144, 184.743, 287.245, 262.631, 191.578, 163.972]
    seeds, _ = table_of("000-size-scaling")
    assert sum(s is not None for s in seeds) == 11  # 12 cells, one N/A
    assert table_of("000-blockl-sweep")[0][6] == 1297  # blockL = 512, the report's best
    assert all(s is None for s in table_of("000-blockl-sweep", "quick")[0])  # other size


@pytest.mark.parametrize("argv, says", [
    (["run", "003-tile-sweep", "--mode", "tiny", "--device", "bogus"], "--device 'bogus'"),
    (["run", "003-tile-sweep", "--mode", "tiny", "--out", "{file}"], "is a file"),
    (["redraw", "003-tile-sweep", "--out", "{empty}"], "nothing to redraw"),
    # a damaged record was a traceback; another experiment's was drawn under this title
    (["redraw", "003-tile-sweep", "--out", "{cut}"], "is not an experiment's record"),
    (["redraw", "003-tile-sweep", "--out", "{other}"], "records 004-tile-width, not"),
    (["run", "003-length-sweep", "--budget", "-1"], "--budget must be > 0"),
    (["run", "003-length-sweep", "--time-limit", "0"], "--time-limit must be > 0"),
])
def test_mistakes_are_status_2_before_any_work(argv, says, tmp_path, capsys, monkeypatch):
    """A device that names none and --out a file raised a traceback with status 1
    (which says a result was wrong); a redraw of nothing said nothing, status 0."""
    import portgemm.experiments.__main__ as cli

    monkeypatch.setattr(cli, "run_experiment", lambda *a, **k: pytest.fail("it ran"))
    (tmp_path / "file").write_text("")
    for folder, text in (("cut", '{"records": [{"ser'),
                         ("other", '{"experiment": "004-tile-width", "records": []}')):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "003-tile-sweep.json").write_text(text)
    argv = [a.format(file=tmp_path / "file", empty=tmp_path, cut=tmp_path / "cut",
                     other=tmp_path / "other") for a in argv]
    assert main(argv) == 2 and says in capsys.readouterr().err


def test_command_line_reproduces_the_run():
    assert command_line("003-tile-sweep", "gpu", "quick", "out", None) == (
        "python -m portgemm.experiments run 003-tile-sweep --device gpu --quick --out out")
    assert "--budget 20 --time-limit 90" in command_line("x", None, "full", "o", 20.0, 90.0)


def test_operands_of_report_004_follow_its_formulas():
    from portgemm.experiments.inputs import operands

    a, b = operands("004", (3, 4, 5))
    assert a.shape == (3, 5) and b.shape == (5, 4) and a.dtype == np.float32
    i, j = 2, 4
    assert a[i, j] == pytest.approx((i - 0.1 * j + 1) / (i + j + 1))
    j = 3
    assert b[i, j] == pytest.approx((j - 0.2 * i + 1) * (i + j + 1) / (i * i + j * j + 1))


# --- paper 001: scaled pairs, the model beside the measurements -----------------------

def test_pairs_are_scaled_by_powers_of_ten_until_they_fit():
    """MTXC (7 x 7 x 2e9) on a device allocating at most 256 MiB at once: K/1000 is the
    first power of ten whose operands (7 x 2e6 floats = 56 MB) fit; 2e7 (560 MB) does not."""
    from types import SimpleNamespace

    from portgemm.experiments.seed001 import scaled

    small = SimpleNamespace(global_mem_size=1 << 30, max_mem_alloc_size=1 << 28)
    mtxc = (7, 7, 2_000_000_000)
    assert scaled(mtxc, small, MODES["full"]) == ((7, 7, 2_000_000), 1000)
    assert scaled(mtxc, small, MODES["quick"]) == ((7, 7, 200_000), 10_000)
    roomy = SimpleNamespace(global_mem_size=1 << 40, max_mem_alloc_size=1 << 40)
    # however much memory: a 32-bit index cannot reach 1.4e10 elements
    assert scaled(mtxc, roomy, MODES["full"])[1] >= 10


def test_the_papers_optima_come_from_portgemms_reading_of_its_model():
    """The sweep states the paper's optimum beside what portgemm's model gives with the
    paper's constant tables, computed when the module loads."""
    says = get("001-model-sweep").report_says
    assert says.count("GS(136), BS(512)") == 2 and says.count("GS(864), BS(256)") == 2
    assert "rtx2080ti: GS(136), BS(512); a100-pcie-40gb: GS(864), BS(256)" in says


def test_the_model_is_fitted_per_panel_on_correct_points_only():
    from portgemm.experiments.fit import fit_model

    experiment = get("001-gs-bs-grid")

    def record(panel, x, ms, model, status="ok"):
        point = Point("s", x, "phvm", (5, 5, 100), panel=panel, model=model)
        r = Record.for_point(experiment, point, device="d", backend="opencl")
        r.time_ms, r.status = ms, status
        return r

    records = [record("a", 1, 10.0, 1.0), record("a", 2, 40.0, 4.0),
               record("a", 3, 1e6, 2.0, status="WRONG"),  # kept, drawn, not fitted on
               record("b", 1, 3.0, 1.0), record("b", 2, None, 9.0, status="skipped")]
    fit_model(records)
    assert [r.model_fit for r in records] == pytest.approx([10.0, 40.0, 20.0, 3.0, 27.0])


def test_the_grid_holds_odd_group_counts_where_a_stride_aliases(any_device, monkeypatch):
    """On a CPU the model's GS is odd (portgemm.auto.phvm), so the grid it is compared
    with holds each power of two's odd neighbour too, in --quick as well."""
    from portgemm.auto import phvm as paper
    from portgemm.experiments import seed001
    from portgemm.experiments.spec import MODES

    def counts(mode, aliases):
        monkeypatch.setattr(paper, "strides_alias", lambda device: aliases)
        return {p.params["GS"] for p in seed001.grid_points(MODES[mode], any_device)
                if p.series != seed001.LINE}

    for mode in ("full", "quick"):
        plain, odd = counts(mode, False), counts(mode, True)
        assert plain and all(gs & (gs - 1) == 0 for gs in plain)
        assert odd >= plain | {gs + 1 for gs in plain if gs > 1}
        # and no other count, though an odd neighbour may pass the grid's floor of work-
        # items (a sixteenth of the device's) where its power of two falls short: 17 x
        # 1024 against 16 x 1024 on the H100's 132 units
        assert all(gs in plain or (gs - 1) & (gs - 2) == 0 for gs in odd)
    # --quick keeps every other power of two (4, 16, 64, ...) and their odd neighbours;
    # which of them pass the floor depends on the device (a CPU's: 5, 17, 65 among them)
    quick_odd = {gs for gs in counts("quick", True) if gs % 2 and gs > 1}  # 1 = 2^0
    assert quick_odd and all(seed001._even_power(gs - 1) for gs in quick_odd)


def test_the_grid_marks_the_models_choice_and_compares_it_with_the_fastest(any_device,
                                                                           tmp_path):
    from portgemm.auto import phvm as paper

    outcome = run_experiment(get("001-gs-bs-grid"), device=any_device.filter_string,
                             mode="tiny", out=tmp_path, progress=False)
    chosen = [r for r in outcome.records if r.highlight]
    assert len(chosen) == 1 and chosen[0].highlight == "model's optimum"
    r = chosen[0]
    gs, bs, _ = paper.optimum(paper.constants_for(any_device), r.m, r.n, r.k)
    # the point is the model's; what ran has no more groups than K gives work to
    assert r.x == gs and (r.params["GS"], r.params["BS"]) == (min(gs, -(-r.k // bs)), bs)
    assert all(r.model_fit > 0 for r in outcome.records if r.status == "ok")
    md = (tmp_path / "001-gs-bs-grid.md").read_text()
    assert "(**model's optimum**)" in md and "model, fitted ms" in md
    assert "x the fastest" in md and "SM_NUM=" in md  # "In this run", constants included


# --- report 002's MPI experiment: real mpiexec jobs -----------------------------------

def test_mpi_points_keep_the_jobs_split_and_command(tmp_path):
    outcome = run_experiment(get("002-mpi"), mode="tiny", out=tmp_path, progress=False)
    if all(r.status == "skipped" for r in outcome.records):
        pytest.skip(outcome.records[0].reason)  # no mpi4py or mpiexec here
    assert [(r.variant, r.x) for r in outcome.records] == [
        (p, ranks) for ranks in (1, 2) for p in ("p2p", "rows", "2d")]
    for r in outcome.records:
        assert r.status == "ok" and r.place == "mpi" and r.relerr <= r.tolerance
        assert r.time_ms == r.wall_ms > 0 and r.reps == 1
        assert r.extra["comm_ms"] + r.extra["compute_ms"] == pytest.approx(r.time_ms)
        # the report's local product: the naive loop on doubles, one core a rank
        assert r.extra["job"] == (f"mpiexec -n {r.x} python -m portgemm.distributed "
                                  "--partition p2p,rows,2d --sizes 64x64x64 --reps 1 "
                                  "--no-one-rank --backend host --variant serial-ijk "
                                  "--dtype float64")
        assert r.dtype == "float64" and r.device == "host"
        assert 0 < r.extra["efficiency_pct"] <= 100 or r.x > 1
    md = (tmp_path / "002-mpi.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| panel"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    assert columns[columns.index("GFLOPS") + 1:][:3] == ["comm ms", "compute ms", "eff %"]
    assert "slowest rank" in md  # what the time is, in the experiment's words


def test_mpi_efficiency_is_the_one_process_jobs_compute_over_p_walls():
    """eff % = the P = 1 job's compute / (P x wall), never a product timed apart (which
    ran slower than the same product in the call: 101-118% at P = 1)."""
    from portgemm.experiments import mpijob
    from portgemm.experiments.measure import Places

    run, places = mpijob.runner(["rows"]), Places()
    one, two = (Point("rows", p, "rows", (8, 8, 8), {"ranks": p, "reps": 1}, on="mpi")
                for p in (1, 2))
    for point, total, compute in ((one, 10.0, 8.0), (two, 6.0, 3.0)):
        places.store[mpijob._key(point, point.params["ranks"])] = {"rows": {
            "total_ms": total, "compute_ms": compute, "relerr": 0.0, "tolerance": 1.0,
            "reps": 1, "devices": ["host"], "job": "mpiexec ..."}}
    assert run(one, places).extra["efficiency_pct"] == pytest.approx(80.0)
    assert run(two, places).extra["efficiency_pct"] == pytest.approx(100 * 8 / (2 * 6))
    assert mpijob.calls(["rows"])(two, places) == 0  # its job ran: nothing more to spend


def test_a_job_point_is_predicted_for_all_the_calls_of_its_job(tmp_path, monkeypatch):
    """A self-contained place's point costs its job's calls: 0.1 s a call at 64^3
    predicts 0.8 s a call at 128^3, within a 2 s budget, but 10 calls are not."""
    from portgemm.experiments.measure import Timing, register_place

    def run(point, places, a=None, b=None, poison=None):
        return Timing(None, 100.0, 100.0, relerr=0.0, tolerance=1.0, reps=1)

    monkeypatch.setattr(measure, "RUNNERS", dict(measure.RUNNERS))
    monkeypatch.setattr(measure, "SELF_CONTAINED", set(measure.SELF_CONTAINED))
    monkeypatch.setattr(measure, "JOB_CALLS", dict(measure.JOB_CALLS))
    register_place("fake-job", run, self_contained=True, calls=lambda point, places: 10)

    def points(mode):
        return [Point("job", n, "p2p", (n, n, n), on="fake-job") for n in (64, 128)]

    experiment = Experiment("999-job", "test", "test", "wall", points, PlotSpec(),
                            reading="test")
    small, large = run_experiment(experiment, mode="tiny", out=tmp_path, budget_s=2.0,
                                  progress=False).records
    assert small.status == "ok"
    assert large.status == "skipped" and "10 calls in its job" in large.reason
    assert large.predicted_s == pytest.approx(8.0)


def test_report_002s_host_and_mpi_experiments_run_its_code_in_double():
    """Its serial, OpenMP and MPI code multiplies doubles; its OpenMP body is the plain
    i-k-j loop; its restrict has no counterpart (numba does not assume it either); a
    recursive rung recurses at every size."""
    for name in ("002-serial-ladder", "002-omp-chunk", "002-omp-threads", "002-mpi"):
        assert get(name).dtype == "float64", name
    assert get("002-device-ladder").dtype == "float32"  # its CUDA kernels take float
    for name in ("002-omp-chunk", "002-omp-threads"):
        points = get(name).plan(MODES["quick"])
        assert all(p.variant == "threads-collapse" and p.params["body"] == "ikj"
                   for p in points)
    ladder = get("002-serial-ladder").plan(MODES["quick"])
    restrict = next(p for p in ladder if p.x == "restrict")
    assert restrict.unavailable and "distinct" not in restrict.unavailable
    assert all(p.params["cutoff"] < p.size[0] for p in ladder if "cutoff" in p.params)


def test_an_experiments_dtype_reaches_its_operands_and_records(tmp_path):
    def points(mode):
        return [Point("ikj", 64, "serial-ikj", (64, 64, 64), on="host")]

    experiment = Experiment("999-double", "test", "test", "wall", points, PlotSpec(),
                            reading="test", dtype="float64")
    (record,) = run_experiment(experiment, mode="tiny", out=tmp_path, progress=False).records
    assert record.status == "ok" and record.dtype == "float64"
    # float64's tolerance, which a float32 product would not meet
    assert record.tolerance < 1e-12 and record.relerr <= record.tolerance


def test_a_failing_mpi_job_marks_its_points_failed_and_keeps_them(tmp_path):
    """Every rank refuses the device: the job exits with status 2 and no records; both
    partitions of that one job are kept, failed, with the job's words."""
    def points(mode):
        return [Point(p, 1, p, (8, 8, 8), {"ranks": 1, "reps": 1}, on="mpi")
                for p in ("p2p", "rows")]

    experiment = Experiment("999-mpi", "test", "test", "wall", points, PlotSpec(),
                            reading="test")
    outcome = run_experiment(experiment, device="opencl:nosuch:7", mode="tiny",
                             out=tmp_path, progress=False)
    if all(r.status == "skipped" for r in outcome.records):
        pytest.skip(outcome.records[0].reason)
    assert [r.status for r in outcome.records] == ["failed", "failed"]
    assert all("status 2" in r.reason and "nosuch" in r.reason for r in outcome.records)
    assert outcome.plot_marks in (None, {"wrong": 0, "skipped": 2})


def test_the_comparison_says_phvm_against_basicmm_and_the_vendor():
    from portgemm.experiments.runner import add_vendor_percent

    experiment = get("001-phvm-vs-vendor")
    times = {"vendor": 8.0, "phvm": 2.0, "basicmm": 6.0, "tallskinny": 1.0}
    records = []
    for x, slower in (("MTXA", 1.0), ("MTXB, K/10", 10.0)):  # PHVM slower than BasicMM
        for variant, ms in times.items():
            on = "vendor" if variant == "vendor" else "device"
            point = Point(variant, x, variant, (3, 3, 1000), on=on)
            r = Record.for_point(experiment, point, device="d", backend="b")
            r.time_ms = ms * (slower if variant == "phvm" else 1.0)
            records.append(r)
    for r in records:  # the vendor percentages go by size: give each pair its own K
        r.k += records.index(r) // 4
    add_vendor_percent(records)
    assert experiment.findings(records) == [
        "MTXA: PHVM is 3.00x faster than BasicMM; PHVM 400% of the vendor; "
        "tallskinny 800% of the vendor",
        "MTXB, K/10: PHVM takes 3.33x BasicMM's time; PHVM 40% of the vendor; "
        "tallskinny 800% of the vendor"]


def test_a_failed_job_is_told_by_its_own_words_not_a_warning():
    """A library's warning at import comes before the job's complaint on stderr (Python
    3.9's pytools warned about a missing hash module); the reason is the complaint."""
    from portgemm.experiments.mpijob import complaints

    stderr = ("/venv/lib/python3.9/site-packages/pytools/persistent_dict.py:63: "
              "RecommendedHashNotFoundWarning: Unable to import recommended hash\n"
              "  warn(\"Unable to import recommended hash 'siphash24.siphash13', \"\n"
              "portgemm.distributed: rank 0: RankSetupError: no device matches 'x'\n")
    assert complaints(stderr)[0].startswith("portgemm.distributed: rank 0")
    only = "a.py:1: UserWarning: something\n  warn('something')\n"
    assert complaints(only) == ["a.py:1: UserWarning: something", "warn('something')"]


def test_a_reference_line_timed_otherwise_says_so_in_the_legend(any_device, tmp_path):
    """003's serial CPU line is a wall time on an axis of kernel times: its legend says
    so, as the table does (the axis's label alone spoke for it)."""
    plt = pytest.importorskip("matplotlib.pyplot")
    from portgemm.experiments.plot import _draw_lines, _Marks

    experiment = get("003-tile-sweep")
    outcome = run_experiment(experiment, device=any_device.filter_string, mode="tiny",
                             out=tmp_path, progress=False)
    figure, ax = plt.subplots()
    colors = {r.series: "C0" for r in outcome.records}
    _draw_lines(ax, experiment, outcome.records, colors, _Marks())
    labels = ax.get_legend_handles_labels()[1]
    plt.close(figure)
    assert "serial CPU (ijk) (wall)" in labels and "tiled" in labels
