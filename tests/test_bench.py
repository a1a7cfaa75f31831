"""The bench CLI writes the documented records, measured, with the reference beside them."""

import csv
import json

import numpy as np
import pytest

from portgemm.auto.shapes import device_class
from portgemm.bench import parse_sizes
from portgemm.bench.__main__ import main, model_notes
from portgemm.bench.runner import BenchRecord
from portgemm.bench.targets import Target

REQUIRED = {"device", "variant", "params", "m", "n", "k", "kernel_ms", "wall_ms", "gflops",
            "ref_gflops", "relerr"}


def test_json_and_csv_records(any_device, tmp_path, capsys):
    out_json, out_csv = tmp_path / "r.json", tmp_path / "r.csv"
    code = main(["--device", any_device.filter_string, "--variant", "naive,inreg",
                 "--tile", "2x4", "--length", "3", "--sizes", "33,20x7x5", "--reps", "2",
                 "--json", str(out_json), "--csv", str(out_csv), "--no-progress"])
    assert code == 0
    records = json.loads(out_json.read_text())
    assert len(records) == 4
    for r in records:
        assert REQUIRED <= set(r)
        assert r["status"] == "ok"
        assert r["kernel_ms"] > 0 and r["wall_ms"] > 0 and r["gflops"] > 0
        assert r["ref_gflops"] > 0 and r["relerr"] < 1e-5
        assert r["pct_of_ref"] == pytest.approx(100 * r["gflops"] / r["ref_gflops"])
    inreg = [r for r in records if r["variant"] == "inreg"]
    assert all(r["params"]["tile_y"] == 2 and r["params"]["tile_x"] == 4
               and r["params"]["length"] == 3 for r in inreg)
    assert {(r["m"], r["n"], r["k"]) for r in records} == {(33, 33, 33), (20, 7, 5)}
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 4 and REQUIRED <= set(rows[0])
    table = capsys.readouterr().out
    reference = "cublas" if any_device.type == "gpu" and records[0]["reference"] == "cublas" else "numpy"
    assert "GFLOPS" in table and reference in table
    assert all(r["reference"] == reference for r in records)


def test_layout_makes_column_major_operands(any_device, tmp_path, monkeypatch, capsys):
    """--layout CF hands the variant a row-major A and a column-major B (A @ W.T), checks
    the result against float64 and records the layout; a vector operand (1 x K) is both
    orders in memory and is recorded as row-major."""
    import portgemm.bench.runner as runner

    seen = []
    real_gemm = runner.gemm

    def watching(a, b, **kwargs):
        seen.append((a.flags.c_contiguous, b.flags.f_contiguous and not b.flags.c_contiguous))
        return real_gemm(a, b, **kwargs)

    monkeypatch.setattr(runner, "gemm", watching)
    out = tmp_path / "r.json"
    assert main(["--device", any_device.filter_string, "--variant", "tallskinny",
                 "--sizes", "3x40x300,1x20x64", "--layout", "CF", "--reps", "1",
                 "--no-progress", "--no-clblast", "--json", str(out)]) == 0
    records = json.loads(out.read_text())
    assert [r["layout"] for r in records] == ["CF", "CF"]
    assert all(r["status"] == "ok" and r["relerr"] < 1e-5 for r in records)
    assert seen and all(a_rows and b_columns for a_rows, b_columns in seen)
    assert "3x40x300 CF" in capsys.readouterr().out
    assert main(["--device", any_device.filter_string, "--variant", "naive", "--sizes",
                 "1x20x64", "--layout", "FF", "--reps", "1", "--no-progress", "--no-clblast",
                 "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["layout"] == "CF"  # a 1 x K A is both orders


def test_parse_sizes():
    assert parse_sizes("256, 512") == [(256,) * 3, (512,) * 3]
    assert parse_sizes("10x20x30") == [(10, 20, 30)]
    for bad in ["abc", "0", "1x2", "-5", "4x4x0", "8,", " "]:
        with pytest.raises(ValueError):
            parse_sizes(bad)


def test_clblast_column_when_a_clblast_reference_is_timed(any_device, tmp_path, monkeypatch):
    """The plumbing of the CLBlast reference (pyclblast is optional; faked here)."""
    import portgemm.bench.__main__ as bench
    from portgemm.bench.references import ReferenceTiming

    monkeypatch.setattr(bench, "time_clblast", lambda a, b, device, reps, warmup:
                        ReferenceTiming("clblast", 2.0))
    out = tmp_path / "r.json"
    assert main(["--device", any_device.filter_string, "--variant", "naive", "--sizes", "16",
                 "--reps", "1", "--json", str(out), "--no-progress"]) == 0
    record = json.loads(out.read_text())[0]
    assert record["clblast_ms"] == 2.0
    assert record["pct_of_clblast"] == pytest.approx(
        100 * record["gflops"] / (2 * 16**3 / 2.0e6))


def test_clblast_reference_is_none_without_pyclblast(any_device, monkeypatch):
    import builtins

    from portgemm.bench.references import time_clblast

    real_import = builtins.__import__

    def no_pyclblast(name, *args, **kwargs):
        if name == "pyclblast":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyclblast)
    a = np.ones((4, 4), np.float32)
    assert time_clblast(a, a, any_device, 1, 0) is None


def test_reference_is_timed_turn_about(monkeypatch):
    """On a CPU, numpy runs in blocks alternating with the case's, each block after a
    pause and one untimed call, so both sides see the machine in the same state."""
    from portgemm.bench import runner

    monkeypatch.setattr(runner, "SETTLE_S", 0)
    log = []

    def ours():
        log.append("o")
        return len(log)

    def numpy_ms():
        log.append("r")
        return 2.0 if len(log) % 2 else 4.0

    runs, ref_ms = runner.turn_about(ours, numpy_ms, 7)
    assert len(runs) == 7 and len(ref_ms) == 7 and set(ref_ms) <= {2.0, 4.0}
    assert "".join(log) == "ooo" "rrr" "ooo" "rrr" "oooo" "rrrr"


def test_turn_about_drops_every_run_s_c(monkeypatch):
    """Runs keep their times but not their C: a kept C makes every later call fault in
    fresh pages (4096x4096x64 read 5x slower on Intel's CPU runtime) while numpy's dropped
    output is reused, which is not a fair race."""
    import weakref

    from portgemm.bench import runner
    from portgemm.result import GemmResult

    monkeypatch.setattr(runner, "SETTLE_S", 0)
    outputs = []

    def ours():
        c = np.zeros(4)
        outputs.append(weakref.ref(c))
        return GemmResult(c, None, "naive", {}, kernel_ms=1.0, wall_ms=2.0)

    runs, _ = runner.turn_about(ours, lambda: 1.0, 5)
    assert [r.wall_ms for r in runs] == [2.0] * 5 and all(r.c is None for r in runs)
    assert len(outputs) == 5 + runner.TURNS and all(ref() is None for ref in outputs)


def test_cpu_rows_carry_their_own_numpy_time(any_device, tmp_path, monkeypatch):
    """On a CPU each row's ref_ms is the median of the numpy calls timed beside it. The
    calls are stood in for by ones whose times count up (1, 2, 3 ... ms), so a later row's
    median is larger: two rows sharing one timing cannot pass, and two real medians that
    happen to be equal cannot fail."""
    import portgemm.bench.__main__ as bench_main

    calls = []

    def counting_call_ms(a, b):
        def call():
            calls.append(None)
            return float(len(calls))
        return call

    if any_device.type != "gpu":
        monkeypatch.setattr(bench_main, "numpy_call_ms", counting_call_ms)
    out = tmp_path / "r.json"
    assert main(["--device", any_device.filter_string, "--variant", "naive,tiled",
                 "--sizes", "48", "--reps", "3", "--json", str(out), "--no-progress"]) == 0
    records = json.loads(out.read_text())
    for r in records:
        assert r["ref_ms"] > 0
        assert r["ref_gflops"] == pytest.approx(2 * 48**3 / (r["ref_ms"] * 1e6))
    if any_device.type != "gpu":
        assert 0 < records[0]["ref_ms"] < records[1]["ref_ms"] <= len(calls)


def test_model_note_names_the_shapes_the_models_chose(any_device):
    """The note after the table names the shapes whose auto row found no entry for its
    size class, and no others: not a shipped entry's row, nor a skinny or tall-skinny C,
    which the models serve by design and the suggested tune would not (the note kept
    naming them after that tune had run)."""
    def record(source, m, n=300, k=200):
        return BenchRecord(any_device.name, any_device.filter_string, "auto:x", {},
                           "float32", m, n, k, source=source)

    target = Target("opencl", any_device, any_device.filter_string)
    notes = model_notes([record("model", 100), record("shipped", 200), record("model", 300),
                         record("model", 1, 600), record("model", 8, 8, 4096)], [target])
    assert len(notes) == 1 and "100x300x200, 300x300x200" in notes[0]
    assert "200x300x200" not in notes[0] and "--save" in notes[0] and "8x8x4096" not in notes[0]
    # a row of 600 columns is skinny on GPUs and Intel's runtime, an ordinary C on PoCL
    row_is_skinny = device_class(any_device, 1, 600, 200)[0] == "skinny"
    assert ("1x600x200" in notes[0]) != row_is_skinny
    assert model_notes([record("shipped", 200)], [target]) == []


def test_an_interrupted_run_writes_and_shows_its_rows(any_device, tmp_path, monkeypatch,
                                                      capsys):
    """Ctrl-C during the bench: the rows measured so far are written and shown, status
    130 (a traceback and no file before)."""
    import portgemm.bench.__main__ as bench_cli

    calls = []

    def second_interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    original = bench_cli.bench_case
    monkeypatch.setattr(bench_cli, "bench_case", second_interrupted)
    out_json = tmp_path / "r.json"
    code = main(["--device", any_device.filter_string, "--variant", "naive,tiled",
                 "--sizes", "24", "--reps", "1", "--json", str(out_json), "--no-progress",
                 "--no-clblast"])
    assert code == 130
    assert [r["variant"] for r in json.loads(out_json.read_text())] == ["naive"]
    captured = capsys.readouterr()
    assert "naive" in captured.out and "interrupted after 1 rows" in captured.err


def test_rows_whose_reference_was_disturbed_are_marked(any_device, tmp_path, monkeypatch,
                                                       capsys):
    """numpy's runs beside a CPU row varying more than DISTURBED_SPREAD (another process
    had the host) make its ratio void: the row says so, and a note under the table. The
    stand-in calls take 1, 10, 1, 10 ... ms."""
    import portgemm.bench.__main__ as bench_main

    if any_device.type == "gpu":
        pytest.skip("a GPU's reference is timed once a shape")
    calls = []

    def swinging_call_ms(a, b):
        def call():
            calls.append(None)
            return 1.0 if len(calls) % 2 else 10.0
        return call

    monkeypatch.setattr(bench_main, "numpy_call_ms", swinging_call_ms)
    out = tmp_path / "r.json"
    assert main(["--device", any_device.filter_string, "--variant", "naive", "--sizes", "32",
                 "--reps", "6", "--json", str(out), "--no-progress"]) == 0
    record = json.loads(out.read_text())[0]
    assert record["ref_spread"] == pytest.approx(10.0)
    printed = capsys.readouterr().out
    assert "(disturbed)" in printed and "not to be trusted" in printed


def test_the_footer_says_what_each_backends_kernel_ms_is(any_device, capsys):
    """The footer said "OpenCL event time" of host rows (the call's own time) and of dpex
    rows (SYCL events)."""
    assert main(["--device", f"{any_device.filter_string},host", "--variant",
                 "naive,serial-ikj", "--sizes", "16", "--reps", "1", "--no-progress", "--no-clblast"]) == 0
    footer = next(line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("kernel ms:"))
    assert "OpenCL event time" in footer and "the call's own time (host)" in footer
