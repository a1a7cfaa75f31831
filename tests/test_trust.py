"""Issue 8: every bad input gets a clear error, nothing is lost, nothing is loaded from a
shared folder. Command lines, device memory limits, empty products, odd parameter types,
concurrent database saves, and what the package writes where."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import portgemm
from portgemm import cli, operands
from portgemm.backends import get_backend
from portgemm.bench import __main__ as bench
from portgemm.devices import main as devices_main
from portgemm.runtime.queue import Queue
from portgemm.tune.__main__ import main as tune_main

from conftest import assert_close, usable_devices

PACKAGE = Path(portgemm.__file__).parent
QUICK = ["--reps", "1", "--warmup", "0", "--no-progress", "--no-clblast"]


def run_module(module: str, *args: str, **env) -> subprocess.CompletedProcess:
    """``python -m module args`` in a new interpreter, with ``env`` added (None removes)."""
    full_env = {**os.environ, **{k: v for k, v in env.items() if v is not None}}
    for key in (k for k, v in env.items() if v is None):
        full_env.pop(key, None)
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True,
                          text=True, env=full_env, timeout=120)


def pocl_device():
    return next((d for d in usable_devices() if "portable computing" in d.platform.lower()),
                None)


def assert_usage_error(run, capsys) -> str:
    """``run()`` exits with status 2 and one line on stderr; that line is returned."""
    with pytest.raises(SystemExit) as info:
        run()
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err.strip()


# --- 1. the bench honours PORTGEMM_DEVICE --------------------------------------------

def test_bench_runs_on_the_device_portgemm_device_names(tmp_path):
    pocl = pocl_device()
    if pocl is None or pocl == portgemm.select_device("default"):
        pytest.skip("needs PoCL beside another default device")
    out = tmp_path / "r.json"
    done = run_module("portgemm.bench", "--sizes", "8", "--variant", "naive", "--json",
                      str(out), *QUICK, PORTGEMM_DEVICE="pocl")
    assert done.returncode == 0, done.stderr
    assert [r["filter_string"] for r in json.loads(out.read_text())] == [pocl.filter_string]
    assert f"\n{pocl.filter_string} " in done.stdout  # the table's device column


# --- 2. command lines: one line and status 2 for a mistake, checked before any work -----

def test_bench_sizes_past_the_machines_memory_are_a_mistake(capsys, monkeypatch):
    """Operands and their float64 reference that the host cannot hold: one line and
    status 2 (numpy's MemoryError was a traceback), the machine's memory named."""
    from portgemm.bench import runner

    monkeypatch.setattr(runner, "_physical_memory", lambda: 2**30)  # a 1 GiB machine
    monkeypatch.setattr(bench, "run", lambda args: pytest.fail("the run started"))
    line = assert_usage_error(lambda: bench.main(["--sizes", "8192"]), capsys)
    assert "2.5 GiB of host memory" in line and "this machine has 1.0 GiB" in line


@pytest.mark.parametrize("args, says", [
    (["--sizes", "0"], "--sizes"),
    (["--sizes", "1x1x4000000000"], "32-bit index limit"),
    (["--sizes", "-5"], "--sizes"),
    (["--sizes", "abc"], "--sizes"),
    (["--sizes", "8x8"], "--sizes"),
    (["--variant", "nosuch"], "unknown variant 'nosuch'"),
    (["--variant", "naive,"], "unknown variant ''"),  # the empty name was a blank
    (["--device", "nosuch"], "no device matches 'nosuch'"),
    (["--device", ""], "blank device"),  # "$DEV" unset: the default device ran
    (["--device", "cpu,"], "blank device"),
    (["--params", "{bad"], "--params"),
    (["--params", "[1, 2]"], "--params"),
    # a value every variant that has the parameter refuses: every row was skipped
    (["--variant", "tiled", "--params", '{"tile_y": "x"}'], "tile_y must be a positive"),
    # a name no variant has: ignored for every row before
    (["--variant", "tiled", "--params", '{"tile_z": 4}'], "no variant to run here has"),
    (["--tile", "0x8"], "--tile"),
    (["--tile", "8"], "--tile"),
    (["--length", "0"], "--length"),
    (["--reps", "0"], "--reps"),
    (["--seed", "-1"], "--seed"),
    (["--json", "/nonexistent/x.json"], "/nonexistent"),
    (["--csv", "."], "is a folder"),
    (["--json", ""], "empty path"),
    (["--no-such-option"], "unrecognized"),
])
def test_bench_mistakes_are_one_line_and_status_2_before_any_work(args, says, capsys,
                                                                   monkeypatch):
    monkeypatch.setattr(bench, "run", lambda args: pytest.fail("the run started"))
    line = assert_usage_error(lambda: bench.main(["--sizes", "8", *args]), capsys)
    assert line.startswith("python -m portgemm.bench: error:") and says in line


def test_bench_mistake_from_the_command_line_has_no_traceback():
    done = run_module("portgemm.bench", "--sizes", "abc")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_bench_garbage_portgemm_device_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setenv("PORTGEMM_DEVICE", "garbage")
    line = assert_usage_error(lambda: bench.main(["--sizes", "8"]), capsys)
    assert "'garbage' ($PORTGEMM_DEVICE)" in line


def test_devices_with_garbage_portgemm_device_lists_devices_then_one_line(capsys,
                                                                         monkeypatch):
    monkeypatch.setenv("PORTGEMM_DEVICE", "garbage")
    line = assert_usage_error(lambda: devices_main([]), capsys)
    assert "$PORTGEMM_DEVICE='garbage'" in line


def test_devices_from_the_command_line_with_garbage_has_no_traceback():
    done = run_module("portgemm.devices", PORTGEMM_DEVICE="garbage")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "filter string" in done.stdout  # the table that helps fix it is still shown


def test_devices_bad_select_is_a_usage_error(capsys):
    line = assert_usage_error(lambda: devices_main(["--select", "nosuch"]), capsys)
    assert "no device matches 'nosuch'" in line


@pytest.mark.parametrize("args, says", [
    (["--sizes", "0", "--show"], "--sizes"),
    (["--sizes", "-5", "--show"], "--sizes"),
    (["--sizes", "abc", "--show"], "--sizes"),
    (["--sizes", "8", "--variant", "nosuch"], "unknown variant"),
    (["--sizes", "8", "--device", "nosuch", "--show"], "no device matches"),
    (["--sizes", "8", "--variant", "tiled", "--param", "tile_q=1,2"], "no parameter tile_q"),
    (["--sizes", "8", "--variant", "tiled", "--param", "tile_y="], "--param"),
    (["--sizes", "8", "--variant", "tiled", "--restrict", "tile_y <"], "--restrict"),
    (["--sizes", "8", "--variant", "tiled", "--restrict", "tile_q > 1"], "no parameter tile_q"),
    (["--model", "tallskinny", "--constants", "rtx2080ti"], "go with --model phvm"),
    (["--model", "phvm", "--constants", "rtx2080ti", "--sweep"], "leave out --sweep"),
    (["--model", "tallskinny", "--variant", "tiled"], "leave out --variant"),
    (["--model", "tallskinny", "--save"], "leave out --variant, --save"),
    (["--model", "phvm", "--show"], "--show"),
    (["--model", "tallskinny", "--u-sm", "0.5"], "--u-sm"),
    (["--sizes", "8", "--variant", "tiled", "--reps", "0"], "--reps"),
    (["--sizes", "8", "--variant", "tiled", "--fraction", "0"], "--fraction"),
    (["--sizes", "8", "--variant", "tiled", "--budget", "-1"], "--budget"),
    (["--sizes", "8", "--variant", "tiled", "--database", "/dev/null/db.json"], "cannot write"),
])
def test_tune_mistakes_are_one_line_and_status_2_before_any_work(args, says, capsys,
                                                                  monkeypatch):
    import portgemm.tune.__main__ as tune_cli

    monkeypatch.setattr(tune_cli, "tune", lambda *a, **k: pytest.fail("tuning started"))
    line = assert_usage_error(lambda: tune_main(args), capsys)
    assert line.startswith("python -m portgemm.tune: error:") and says in line


def test_bench_output_is_checked_before_the_run_and_the_run_is_not_lost(any_device,
                                                                         tmp_path, capsys):
    out = tmp_path / "r.json"
    assert bench.main(["--device", any_device.filter_string, "--variant", "naive", "--sizes",
                       "8", "--json", str(out), *QUICK]) == 0
    assert json.loads(out.read_text())[0]["status"] == "ok"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]  # no temporary left


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        cli.write_atomically(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_bench_into_a_closed_pipe_ends_quietly(any_device):
    """``bench | head``: the reader leaves early; no BrokenPipeError, no traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "portgemm.bench", "--device", any_device.filter_string,
         "--variant", "naive", "--sizes", "8", *QUICK],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()  # every write to stdout now fails with EPIPE
    err = process.stderr.read()
    process.wait(timeout=120)
    assert "BrokenPipeError" not in err and "Traceback" not in err, err
    assert process.returncode == 0


def test_bench_where_every_row_was_skipped_fails(any_device, capsys):
    code = bench.main(["--device", any_device.filter_string, "--variant", "tiled",
                       "--params", '{"tile_y": 64, "tile_x": 64}', "--sizes", "8", *QUICK])
    captured = capsys.readouterr()
    assert code != 0
    assert "skipped" in captured.out and "no case ran" in captured.err


def test_bench_records_source_and_says_how_to_tune_a_device_without_entries(
        any_device, tmp_path, capsys, monkeypatch):
    from portgemm.auto import database

    # no entry anywhere (an empty user database, no shipped one): auto uses the model
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "empty.json"))
    monkeypatch.setattr(database, "shipped_database_paths", lambda: ())
    out_json, out_csv = tmp_path / "r.json", tmp_path / "r.csv"
    assert bench.main(["--device", any_device.filter_string, "--variant", "auto,naive",
                       "--sizes", "8", "--json", str(out_json), "--csv", str(out_csv),
                       *QUICK]) == 0
    records = json.loads(out_json.read_text())
    assert [r["source"] for r in records] == ["model", "explicit"]
    assert [r["source"] for r in csv.DictReader(out_csv.open())] == ["model", "explicit"]
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("device"))
    assert "source" in header.split()
    hint = f"python -m portgemm.tune --quick --device {any_device.filter_string} --save"
    assert hint in out
    # with the databases turned off no entry is read, so tuning could not help: no hint
    monkeypatch.setenv("PORTGEMM_TUNING_DB", "none")
    assert bench.main(["--device", any_device.filter_string, "--variant", "auto",
                       "--sizes", "8", *QUICK]) == 0
    assert hint not in capsys.readouterr().out


def test_bench_says_nothing_about_tuning_when_auto_has_an_entry(any_device, capsys):
    choice = portgemm.gemm(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32),
                           device=any_device)
    if choice.source == "model":
        pytest.skip("no database entry for this device")
    assert bench.main(["--device", any_device.filter_string, "--variant", "auto",
                       "--sizes", "8", *QUICK]) == 0
    assert "portgemm.tune" not in capsys.readouterr().out


# --- 3. device memory limits, checked before any buffer ------------------------------

def test_operand_over_max_mem_alloc_size_is_a_parameter_error(device, monkeypatch):
    """The issue's 2 x 24000 @ 24000 x 24000 on PoCL, sized from each device's own limit
    (PoCL's follows the free memory)."""
    monkeypatch.setattr(Queue, "to_device", lambda *a, **k: pytest.fail("a buffer was made"))
    n = device.max_mem_alloc_size // 16 + 1  # b (2 x n float64) is one byte too many
    if 2 * n > operands.MAX_ELEMENTS:
        pytest.skip("the 32-bit index limit comes first on this device")
    b = np.broadcast_to(np.float64(1), (2, n))  # no memory behind it
    with pytest.raises(portgemm.ParameterError, match="b .* max_mem_alloc_size"):
        portgemm.matmul(np.ones((2, 2)), b, device=device)


def test_operands_over_global_mem_size_together_is_a_parameter_error(any_device,
                                                                       monkeypatch):
    monkeypatch.setattr(Queue, "to_device", lambda *a, **k: pytest.fail("a buffer was made"))
    small = dataclasses.replace(any_device, max_mem_alloc_size=4096, global_mem_size=10000)
    a = np.ones((32, 32), np.float32)  # 4096 bytes each: each fits, all three do not
    with pytest.raises(portgemm.ParameterError, match="global_mem_size"):
        portgemm.matmul(a, a, device=small, variant="naive")


def test_memory_check_skips_devices_without_limits():
    a = np.broadcast_to(np.float32(1), (50000, 50000))
    operands.check_device_memory(get_backend("host").device(None), a, a)  # no limits
    operands.check_device_memory(object(), a, a)


# --- 6. numpy integers as parameters; a device spec of the wrong type ------------------

def test_numpy_integer_parameters_are_accepted(any_device):
    a = np.random.default_rng(0).standard_normal((9, 7)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((7, 5)).astype(np.float32)
    result = portgemm.gemm(a, b, device=any_device, variant="tiled",
                           params={"tile_y": np.int64(2), "tile_x": np.int32(2)})
    assert result.params["tile_y"] == 2 and result.params["tile_x"] == 2
    assert_close(result.c, a, b)


@pytest.mark.parametrize("spec", [0, 1.5, True, [0], b"cpu"])
def test_device_spec_of_another_type_is_a_type_error(spec):
    a = np.ones((2, 2), np.float32)
    with pytest.raises(TypeError, match="a device spec is None, a selector string"):
        portgemm.matmul(a, a, device=spec)
    with pytest.raises(TypeError, match=type(spec).__name__):
        portgemm.select_device(spec)


def test_int_device_spec_says_how_to_write_an_index():
    with pytest.raises(TypeError, match="'opencl:1'"):
        portgemm.select_device(1)


# --- 7. empty products follow numpy ---------------------------------------------------

EMPTY = [(3, 0, 2), (0, 3, 2), (3, 2, 0), (0, 0, 0), (0, 5, 0)]  # M, K, N


@pytest.mark.parametrize("backend", ["opencl", "host"])
@pytest.mark.parametrize("m, k, n", EMPTY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_product_is_numpys_answer_without_a_kernel(backend, m, k, n, dtype,
                                                         monkeypatch):
    if backend == "opencl" and not usable_devices():
        pytest.skip("no OpenCL device can build kernels here")
    chosen = get_backend(backend)
    monkeypatch.setattr(type(chosen), "run", lambda *a, **k: pytest.fail("a kernel ran"))
    a, b = np.ones((m, k), dtype), np.ones((k, n), dtype)
    expected = a @ b
    result = portgemm.gemm(a, b, backend=backend)
    assert result.c.shape == expected.shape and result.c.dtype == expected.dtype
    assert np.array_equal(result.c, expected)
    assert result.kernel_ms == 0 and result.backend == backend
    assert "no kernel ran" in result.reason
    assert np.array_equal(portgemm.matmul(a, b, backend=backend), expected)


def test_empty_product_still_checks_variant_and_parameters(any_device):
    a, b = np.ones((3, 0), np.float32), np.ones((0, 2), np.float32)
    with pytest.raises(portgemm.ParameterError, match="registered variants"):
        portgemm.matmul(a, b, device=any_device, variant="magic")
    with pytest.raises(ValueError, match="positive integer"):
        portgemm.matmul(a, b, device=any_device, variant="tiled", params={"tile_y": 0})
    result = portgemm.gemm(a, b, device=any_device, variant="tiled", params={"tile_y": 2})
    assert result.variant == "tiled" and result.params["tile_y"] == 2
    assert result.source == "explicit"


# --- 5. concurrent saves to the tuning database lose nothing --------------------------

SAVER = """
import sys
from portgemm.runtime.device import Device
from portgemm.tune.save import save_entries

path, who, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
device = Device(name="Acme", vendor="Acme Inc.", platform="Acme OpenCL", type="gpu", index=0,
                compute_units=1, max_work_group_size=256, max_work_item_sizes=(256, 256, 64),
                local_mem_size=32768, global_mem_size=2**32, max_mem_alloc_size=2**30,
                has_fp64=True, driver_version=who, opencl_version="OpenCL 3.0")
for i in range(count):
    save_entries(path, device, [{"variant": f"v{i}", "shape_class": "small", "dtype": "float32",
                                 "params": {"tile_y": 1}, "gflops": 1.0}])
"""


def test_concurrent_saves_keep_every_entry(tmp_path):
    path = tmp_path / "tuning.json"
    savers = [subprocess.Popen([sys.executable, "-c", SAVER, str(path), who, "200"],
                               stderr=subprocess.PIPE, text=True) for who in ("p1", "p2")]
    for saver in savers:
        assert saver.wait(timeout=120) == 0, saver.stderr.read()
    data = json.loads(path.read_text())
    kept = {(r["match"]["driver_version"], e["variant"])
            for r in data["devices"] for e in r["entries"]}
    assert len(kept) == 400


# --- 8. nothing is written inside the package ------------------------------------------

RUN_HOST = """
import numpy as np, portgemm
from portgemm.backends import serial
a = np.ones((9, 9), np.float32)
for variant in ("serial-ikj", "threads-rows"):
    assert (portgemm.matmul(a, a, backend="host", variant=variant) == 9).all()
print(portgemm.__file__)
print(sum(serial.ikj_update.stats.cache_hits.values()))
"""


def test_host_backend_writes_nothing_inside_the_package(tmp_path):
    """A copy of the package (so stale caches of this checkout cannot hide a write)
    imported and run twice: numba's cache goes to the user's cache folder and is used."""
    copy = tmp_path / "site"
    shutil.copytree(PACKAGE, copy / "portgemm",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    before = sorted(p.relative_to(copy) for p in copy.rglob("*"))
    # the copy first; what PYTHONPATH already held after it (dependencies installed there)
    path = os.pathsep.join(filter(None, [str(copy), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    runs = [subprocess.run([sys.executable, "-c", RUN_HOST], capture_output=True, text=True,
                           env=env, timeout=300, cwd=tmp_path) for _ in range(2)]
    for done in runs:
        assert done.returncode == 0, done.stderr
    assert runs[0].stdout.splitlines()[0] == str(copy / "portgemm" / "__init__.py")
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == before
    assert list((tmp_path / "cache" / "portgemm" / "numba").rglob("*.nbi"))
    assert int(runs[1].stdout.splitlines()[1]) > 0  # the second process loaded, not compiled
    # an edit to another module of the folder (threads.py's tile comes from microkernel.py)
    # compiles the folder's kernels again: numba alone would key them on their own file
    with open(copy / "portgemm" / "backends" / "microkernel.py", "a") as f:
        f.write("\n# edited\n")
    edited = subprocess.run([sys.executable, "-c", RUN_HOST], capture_output=True, text=True,
                            env=env, timeout=300, cwd=tmp_path)
    assert edited.returncode == 0, edited.stderr
    assert int(edited.stdout.splitlines()[1]) == 0


@pytest.mark.parametrize("command", [["portgemm.bench", "--variant", "naive", "--sizes", "16",
                                      *QUICK], ["portgemm.devices"]])
def test_a_closed_stdout_ends_quietly(command, tmp_path):
    """With stdout closed (`>&-`) Python's sys.stdout is None: the bench wrote its JSON,
    then died on sys.stdout.flush() with an AttributeError (exit 1)."""
    out = tmp_path / "r.json"
    extra = ["--json", str(out)] if command[0] == "portgemm.bench" else []
    line = " ".join([sys.executable, "-m", *command, *extra])
    done = subprocess.run(["sh", "-c", f"{line} >&-"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert not extra or json.loads(out.read_text())[0]["status"] == "ok"
