"""Distributed GEMM over MPI: real ``mpiexec`` jobs of 1-4 ranks (oversubscribed on a
small machine: MPICH's hydra needs no flag for that), every partition on awkward shapes
checked against float64, the errors every rank must agree on, a failing rank and a hung
one ending the job, and the message when mpi4py is missing. Unit tests of the layout, the
model and the check run in this process without MPI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import portgemm
from portgemm.distributed import BLOCK_PARTITIONS
from portgemm.distributed.layout import (
    BlockLayout,
    even_ranges,
    master_worker_ranges,
    padded_ranges,
    process_grid,
)
from portgemm.experiments.mpijob import job_environment  # what Open MPI's mpiexec needs

ALL = ("p2p", "rows", "2d", "summa", "splitk")
# 1x1x1; primes; n = 1; more ranks than rows (m = 2, 3); K < P (k = 1, 2)
AWKWARD = "1x1x1,13x11x7,2x7x3,3x17x2,31x1x5,2x3x1"
REPO = Path(__file__).resolve().parent.parent
MPIEXEC = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")


def mpi_ready() -> str | None:
    """Why MPI jobs cannot run here, or None."""
    try:
        import mpi4py  # noqa: F401  (imports the package only: MPI is not initialised)
    except ImportError:
        return 'mpi4py is not installed: pip install "portgemm[mpi]"'
    return None if MPIEXEC else "no mpiexec (the mpich wheel brings one)"


needs_mpi = pytest.mark.skipif(mpi_ready() is not None, reason=str(mpi_ready()))


def mpiexec(ranks: int, args: list[str], timeout: float = 90,
            env: dict | None = None) -> subprocess.CompletedProcess:
    """``mpiexec -n ranks python ARGS``; ``timeout`` ends a hung job (the test then fails);
    ``env``: variables added to this process's environment."""
    return subprocess.run([MPIEXEC, "-n", str(ranks), sys.executable, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout,
                          env={**job_environment(), **(env or {})})


def run_cli(ranks: int, tmp_path: Path, *options: str, timeout: float = 90,
            env: dict | None = None):
    out = tmp_path / f"out{ranks}.json"
    done = mpiexec(ranks, ["-m", "portgemm.distributed", "--reps", "1", "--check",
                           "--json", str(out), *options], timeout, env)
    return done, (json.loads(out.read_text()) if out.exists() else None)


# A job's ranks write their lines to files of their own: lines printed by several
# ranks at once may be interleaved by mpiexec's forwarding.
REPORT = """
import os as _os
def report(line):
    with open(_os.path.join({folder!r}, f"rank{{rank}}.txt"), "a") as f:
        f.write(line + "\\n")
"""


def run_script(ranks: int, tmp_path: Path, code: str, timeout: float = 90):
    """Run ``code`` (which may call ``report(line)`` once it has set ``rank``)."""
    script = tmp_path / "job.py"
    script.write_text(REPORT.format(folder=str(tmp_path)) + textwrap.dedent(code))
    return mpiexec(ranks, [str(script)], timeout)


def reported(tmp_path: Path) -> list[str]:
    return [line for path in sorted(tmp_path.glob("rank*.txt"))
            for line in path.read_text().splitlines()]


def assert_all_right(done, data, ranks: int, partitions=ALL, sizes=AWKWARD) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    records = data["records"]
    shapes = [tuple(int(v) for v in s.split("x")) for s in sizes.split(",")]
    assert {(r["partition"], (r["m"], r["n"], r["k"])) for r in records} == \
        {(p, s) for p in partitions for s in shapes}
    for r in records:
        assert r["ranks"] == ranks and len(r["per_rank"]) == ranks
        assert r["relerr"] <= r["tolerance"] and r["ok"], r
        assert r["total_ms"] > 0 and r["compute_ms"] >= 0 and r["comm_ms"] >= 0
        assert r["comm_ms"] + r["compute_ms"] == pytest.approx(r["total_ms"])


# --- every partition, every awkward shape, 1-4 ranks ---------------------------------

@needs_mpi
@pytest.mark.parametrize("ranks,options", [
    (1, ["--backend", "host", "--variant", "threads-rows"]),
    (2, []),                                              # Intel's CPU runtime (default)
    (3, ["--backend", "host", "--variant", "serial-ikj", "--panel", "2", "--no-overlap"]),
    (4, ["--panel", "1"]),
], ids=["1-host", "2-opencl", "3-host-panel", "4-opencl-panel"])
def test_every_partition_on_awkward_shapes(tmp_path, ranks, options):
    done, data = run_cli(ranks, tmp_path, "--partition", "all", "--sizes", AWKWARD, *options)
    assert_all_right(done, data, ranks)
    table = done.stdout
    for column in ("comm ms", "compute ms", "total ms", "GFLOPS", "eff %", "relerr"):
        assert column in table
    assert all(r["operands"] == ("blocks" if r["partition"] in ("summa", "splitk")
                                 else "root") for r in data["records"])


@needs_mpi
def test_no_one_rank_skips_the_baseline_and_leaves_efficiency_empty(tmp_path):
    """--no-one-rank (the experiments' jobs of a slow local product): no one-rank product
    is timed, so neither it nor the efficiency from it is recorded."""
    done, data = run_cli(2, tmp_path, "--partition", "p2p,rows", "--sizes", "9x5x7",
                         "--backend", "host", "--variant", "serial-ijk", "--dtype", "float64",
                         "--no-one-rank")
    assert_all_right(done, data, 2, ("p2p", "rows"), "9x5x7")
    assert all(r["one_rank_ms"] is None and r["efficiency"] is None for r in data["records"])
    assert all(r["dtype"] == "float64" and r["variant"] == "serial-ijk"
               for r in data["records"])


@needs_mpi
def test_summa_and_splitk_from_the_root_in_float64(tmp_path):
    sizes = "1x1x1,5x9x3,2x2x7"
    done, data = run_cli(4, tmp_path, "--partition", "summa,splitk", "--operands", "root",
                         "--dtype", "float64", "--sizes", sizes)
    assert_all_right(done, data, 4, ("summa", "splitk"), sizes)
    assert {r["operands"] for r in data["records"]} == {"root"}
    assert max(r["relerr"] for r in data["records"]) < 1e-12  # float64 all the way


@needs_mpi
def test_pocl_in_several_processes(tmp_path):
    from conftest import device_status

    pocl = [d for d, why in device_status() if "portable" in d.platform.lower() and not why]
    if not pocl:
        pytest.skip("PoCL cannot build kernels here")
    sizes = "1x1x1,13x11x7"
    done, data = run_cli(2, tmp_path, "--sizes", sizes, "--device", "pocl",
                         "--variant", "naive")
    assert_all_right(done, data, 2, ALL, sizes)
    assert {p["device"] for r in data["records"] for p in r["per_rank"]} == \
        {pocl[0].filter_string}


# --- operands resident on the devices ------------------------------------------------

def pocl_device():
    from conftest import device_status

    pocl = [d for d, why in device_status() if "portable" in d.platform.lower() and not why]
    return pocl[0] if pocl else None


# Chunks of 16 bytes: every staged block goes device -> host -> device in many pieces (a
# few rows, or one), so the pipelined path is what these small shapes run; SUMMA's pieces
# wait in a window shared by the ranks (the default route on one node) or go through MPI.
SMALL_CHUNKS = {"PORTGEMM_MPI_CHUNK_BYTES": "16"}


@needs_mpi
@pytest.mark.parametrize("ranks,options,partitions,route", [
    (1, [], ALL, "shared"),                                         # p2p stays on the host
    (2, ["--device", "pocl", "--variant", "naive", "--panel", "2"], ("2d", "summa"), "shared"),
    (3, ["--no-overlap", "--dtype", "float64"], ("rows", "2d", "summa", "splitk"), "mpi"),
    (4, ["--panel", "1"], ("summa", "splitk"), "shared"),           # 2x2: A's panels move too
    (4, ["--panel", "1"], ("summa",), "mpi"),
], ids=["1-intel", "2-pocl-panel", "3-intel-float64-mpi", "4-intel-panel", "4-intel-mpi"])
def test_resident_operands_on_awkward_shapes(tmp_path, ranks, options, partitions, route):
    if "pocl" in options and pocl_device() is None:
        pytest.skip("PoCL cannot build kernels here")
    done, data = run_cli(ranks, tmp_path, "--resident", "--partition", ",".join(partitions),
                         "--sizes", AWKWARD, *options,
                         env={**SMALL_CHUNKS, "PORTGEMM_MPI_ROUTE": route})
    assert_all_right(done, data, ranks, partitions)
    for r in data["records"]:
        assert r["operands"] == ("root" if r["partition"] == "p2p" else "resident"), r
    if "pocl" in options:
        assert {p["device"] for r in data["records"] for p in r["per_rank"]} == \
            {pocl_device().filter_string}
    if ranks > 1:  # what crosses ranks goes over the bus both ways: summa's panels
        summa = [r for r in data["records"] if r["partition"] == "summa" and r["k"] > 1]
        assert summa and all(r["bus_bytes"] > 0 for r in summa)
    assert all(r["bus_bytes"] == 0 for r in data["records"] if r["partition"] == "2d")
    if "float64" in options:
        assert max(r["relerr"] for r in data["records"]) < 1e-12


RESIDENT_JOB = """
    import numpy as np
    import pyopencl.array as cl_array
    import portgemm
    from mpi4py import MPI
    from portgemm import distributed as d
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    rng = np.random.default_rng(7)
    m, n, k = 11, 9, 10
    a, b = rng.random((m, k)).astype(np.float32), rng.random((k, n)).astype(np.float32)
    want = a.astype(np.float64) @ b
    up = lambda x: portgemm.to_device(np.ascontiguousarray(x), "opencl:cpu:0")
    bad = []

    def close(c, where=(slice(None), slice(None))):
        return (isinstance(c, cl_array.Array) and c.shape == want[where].shape
                and np.allclose(c.get(), want[where], rtol=1e-5))

    for part in ("rows", "2d", "summa"):
        layout = d.block_layout(m, n, k, size, part)
        for panel in (None, 3):
            r = d.gemm_blocks(up(a[layout.a_block(rank)]), up(b[layout.b_block(rank)]),
                              (m, n, k), part, panel=panel)
            if (r.operands != "resident" or r.c_block != layout.c_block(rank)
                    or not close(r.c, r.c_block) or r.device != "opencl:cpu:0"):
                bad.append((part, panel, r.operands))
    mine = slice(*[(0, 4), (4, 4), (4, 10)][rank][:2]) if size == 3 else slice(0, k)
    r = d.gemm_blocks(up(a[:, mine]), up(b[mine]), (m, n, k), "splitk")  # rank 1: K_r = 0
    if r.operands != "resident" or not close(r.c):
        bad.append(("splitk", rank))
    report(("BAD" if bad else "OK") + f" {rank} {bad}")

    def attempt(label, call):
        try:
            call()
            report(f"{label} {rank} NO ERROR")
        except Exception as exc:
            report(f"{label} {rank} {type(exc).__name__}: {exc}")

    layout = d.block_layout(m, n, k, size)
    a_mine, b_mine = a[layout.a_block(rank)], b[layout.b_block(rank)]
    attempt("mixed", lambda: d.gemm_blocks(up(a_mine), b_mine, (m, n, k)))
    attempt("kinds", lambda: d.gemm_blocks(up(a_mine) if rank != 1 else a_mine,
                                           up(b_mine) if rank != 1 else b_mine, (m, n, k)))
    padded = up(np.vstack([a_mine, a_mine]))
    attempt("offset", lambda: d.gemm_blocks(padded[a_mine.shape[0]:], up(b_mine), (m, n, k)))
    attempt("host", lambda: d.gemm_blocks(up(a_mine), up(b_mine), (m, n, k),
                                          local={"backend": "host"}))
    attempt("root", lambda: d.gemm(up(a), up(b), "2d"))
    report(f"after {rank} {comm.allreduce(1)}")
"""


@needs_mpi
def test_resident_library_api_and_its_errors_on_three_ranks(tmp_path):
    done = run_script(3, tmp_path, RESIDENT_JOB, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = reported(tmp_path)
    assert [x for x in lines if x.startswith(("OK", "BAD"))] == ["OK 0 []", "OK 1 []",
                                                                 "OK 2 []"], lines
    by_label: dict[str, dict[int, str]] = {}
    for line in lines:
        label, rank, message = line.split(" ", 2)
        by_label.setdefault(label, {})[int(rank)] = message
    expected = {"mixed": "OperandTypeError: rank 0 of 3: a_mine and b_mine must both be",
                "kinds": "OperandTypeError: ranks disagree on where the blocks are",
                "offset": "OperandTypeError: rank 0 of 3: a_mine must be a C-contiguous",
                "host": "RankSetupError: rank 0 of 3: device arrays need a backend that computes "
                        "on them (opencl): the host backend takes numpy arrays",
                "root": "OperandTypeError: rank 0 of 3: gemm takes numpy operands"}
    for label, start in expected.items():
        messages = by_label[label]
        assert set(messages) == {0, 1, 2} and len(set(messages.values())) == 1, messages
        assert messages[0].startswith(start), (label, messages[0])
    assert by_label["after"] == {0: "3", 1: "3", 2: "3"}


WINDOW_JOB = """
    import os
    import numpy as np
    import portgemm
    from mpi4py import MPI
    from portgemm import distributed as d
    from portgemm.distributed import staging
    comm = MPI.COMM_WORLD
    rank = comm.rank
    rng = np.random.default_rng(3)

    def summa(m, n, k):
        a, b = rng.random((m, k)).astype(np.float32), rng.random((k, n)).astype(np.float32)
        layout = d.block_layout(m, n, k, comm.size)
        up = lambda x: portgemm.to_device(np.ascontiguousarray(x), "opencl:cpu:0")
        r = d.gemm_blocks(up(a[layout.a_block(rank)]), up(b[layout.b_block(rank)]),
                          (m, n, k), "summa", panel=3)
        right = np.allclose(r.c.get(), (a.astype(np.float64) @ b)[r.c_block], rtol=1e-5)
        windows = sorted((w.nbytes, id(w)) for w in staging._windows.values())
        return right, windows

    first = summa(13, 11, 9)
    again = summa(13, 11, 9)
    larger = summa(40, 30, 50)
    os.environ["PORTGEMM_MPI_ROUTE"] = "mpi"
    through_mpi = summa(40, 30, 50)
    report(f"{rank} right {first[0]} {again[0]} {larger[0]} {through_mpi[0]}")
    report(f"{rank} windows {len(first[1])} reused {first[1] == again[1]} "
           f"grown {larger[1][0][0] > first[1][0][0]} kept {through_mpi[1] == larger[1]}")
    # a CPU device shares host memory: the window is not handed to it as a buffer
    report(f"{rank} pinned {[p for w in staging._windows.values() for p in w._pins.values()]}")
"""


@needs_mpi
def test_resident_summa_shares_a_window_between_the_ranks_of_a_node(tmp_path):
    """On one node SUMMA's pieces wait in one shared window per communicator: made by
    the first call, reused by the next, grown when a call needs more; the mpi route
    leaves it alone. Every result right."""
    done = run_script(2, tmp_path, WINDOW_JOB, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    assert reported(tmp_path) == [
        f"{r} {line}" for r in (0, 1) for line in
        ("right True True True True", "windows 1 reused True grown True kept True",
         "pinned [None]")]


def test_an_unknown_route_is_refused(monkeypatch):
    from portgemm.distributed import staging

    monkeypatch.setenv(staging.ROUTE_ENV, "carrier-pigeon")
    with pytest.raises(ValueError, match="PORTGEMM_MPI_ROUTE='carrier-pigeon'; use one of"):
        staging.route()


@needs_mpi
@pytest.mark.parametrize("variable, options", [
    ("PORTGEMM_MPI_WAIT", []), ("PORTGEMM_MPI_ROUTE", ["--resident", "--partition", "summa"]),
    # a traceback from the middle of the run, every rank, exit 3, before
    ("PORTGEMM_MPI_CHUNK_BYTES", ["--resident", "--partition", "summa"]),
])
def test_a_bad_mpi_setting_is_bad_input_on_every_rank(tmp_path, variable, options):
    """Exit 2, every rank saying why (a ValueError before: exit 1, "wrong result")."""
    done, data = run_cli(2, tmp_path, "--sizes", "5", *options, env={variable: "bogus"},
                         timeout=60)
    assert done.returncode == 2 and data is None, done.stderr
    said = dict(re.findall(r"^portgemm\.distributed: rank (\d): (.*)$", done.stderr,
                           re.MULTILINE))
    assert set(said) == {"0", "1"}, done.stderr
    assert all(f"PartitionError: rank 0 of 2: {variable}='bogus'" in line
               for line in said.values()), said


@needs_mpi
def test_resident_needs_opencl_on_the_command_line(tmp_path):
    done, data = run_cli(2, tmp_path, "--resident", "--backend", "host", "--sizes", "5",
                         timeout=60)
    assert done.returncode == 2 and data is None, done.stderr
    assert "--resident keeps operands on the devices of opencl" in done.stderr


# --- the library API: root elsewhere, F order, float64, blocks, per-rank options ------

API_JOB = """
    import numpy as np
    from mpi4py import MPI
    from portgemm import distributed as d
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    rng = np.random.default_rng(5)
    m, n, k = 11, 7, 10
    a, b = rng.random((m, k)), rng.random((k, n))
    want = a @ b
    host = d.LocalOptions(backend="host", variant="serial-ikj")
    # each rank its own choice: even ranks the host backend, odd ranks OpenCL
    per_rank = lambda r, local: host if r % 2 == 0 else d.LocalOptions(variant="naive")

    def close(c):
        return c is not None and c.shape == want.shape and np.allclose(c, want, rtol=1e-12)

    bad = []
    for part in d.PARTITIONS:  # from rank 1, A in Fortran order
        r = d.gemm(np.asfortranarray(a) if rank == 1 else None, b if rank == 1 else None,
                   part, root=np.int64(1), local=per_rank)  # numpy's integers are ranks
        holds_c = rank == 1 or part == "splitk"
        if not (close(r.c) if holds_c else r.c is None):
            bad.append(("root 1", part, rank))
        if r.dtype != "float64" or (r.m, r.n, r.k) != (m, n, k) or r.ranks != size:
            bad.append(("result fields", part))
    layout = d.block_layout(m, n, k, size)
    for panel, overlap in ((None, True), (np.int64(3), True), (4, False), (1, True)):
        r = d.gemm_blocks(a[layout.a_block(rank)], b[layout.b_block(rank)], (m, n, k),
                          "summa", local=host, panel=panel, overlap=overlap)
        if r.c_block != layout.c_block(rank) or not np.allclose(r.c, want[r.c_block]):
            bad.append(("summa blocks", panel, overlap, rank))
    cuts = [0, 7, 7, 10][: size] + [10]  # an uneven K split with an empty slice
    mine = slice(cuts[rank], cuts[rank + 1]) if rank < size - 1 else slice(cuts[rank], k)
    r = d.gemm_blocks(a[:, mine], b[mine], (m, n, k), "splitk", local=host)
    if not close(r.c):
        bad.append(("splitk blocks", rank))
    # the other byte order (a file from another machine), read into this one's: refused
    # before ("a is >f8 and b is >f8: both must be float32 or both float64")
    swapped_a, swapped_b = a.astype(">f8"), b.astype(">f8")
    for part in d.PARTITIONS:
        r = d.gemm(swapped_a if rank == 0 else None, swapped_b if rank == 0 else None,
                   part, local=host)
        if not (close(r.c) if rank == 0 or part == "splitk" else r.c is None):
            bad.append(("byte-swapped", part, rank))
    for part in d.BLOCK_PARTITIONS:
        if part == "splitk":
            a_mine, b_mine = swapped_a[:, mine], swapped_b[mine]
        else:
            layout = d.block_layout(m, n, k, size, part)
            a_mine, b_mine = swapped_a[layout.a_block(rank)], swapped_b[layout.b_block(rank)]
        r = d.gemm_blocks(a_mine, b_mine, (m, n, k), part, local=host)
        if not np.allclose(r.c, want if part == "splitk" else want[r.c_block], rtol=1e-12):
            bad.append(("byte-swapped blocks", part, rank))
    report(("BAD" if bad else "OK") + f" {rank} {bad}")
"""


@needs_mpi
def test_library_api_on_three_ranks(tmp_path):
    done = run_script(3, tmp_path, API_JOB)
    assert done.returncode == 0, done.stderr
    assert reported(tmp_path) == ["OK 0 []", "OK 1 []", "OK 2 []"], done.stdout + done.stderr


# --- errors: the same on every rank, no hang; failures and hangs abort -----------------

ERRORS_JOB = """
    import numpy as np
    from mpi4py import MPI
    from portgemm import distributed as d
    comm = MPI.COMM_WORLD
    rank = comm.rank
    a, b = np.ones((4, 3), np.float32), np.ones((5, 2), np.float32)

    def attempt(label, call):
        try:
            call()
            report(f"{label} {rank} NO ERROR")
        except Exception as exc:
            one_line = " | ".join(str(exc).splitlines())
            report(f"{label} {rank} {type(exc).__name__}: {one_line}")

    attempt("shapes", lambda: d.gemm(a if rank == 0 else None, b if rank == 0 else None, "2d"))
    attempt("partition", lambda: d.gemm(a, a.T.copy(), "bogus"))
    attempt("disagree", lambda: d.gemm(a, a.T.copy(), "rows" if rank else "summa"))
    attempt("blocks", lambda: d.gemm_blocks(np.ones((2, 2)), np.ones((2, 2)), (4, 4, 4),
                                            "summa" if rank != 2 else "splitk"))
    attempt("blockshape", lambda: d.gemm_blocks(np.ones((2, 2)), np.ones((2, 2)),
                                                (4, 4, 4), "summa"))
    attempt("dtype", lambda: d.gemm(a.astype(np.int32), a.T.copy(), "p2p"))
    attempt("lists", lambda: d.gemm_blocks([[1.0]], [[1.0]], (3, 3, 3), "summa"))
    attempt("device", lambda: d.gemm(a, a.T.copy(), "rows",
                                     local={"device": "cpu" if rank < 2 else "opencl:cpu:99"}))
    attempt("fraction", lambda: d.gemm_blocks(np.ones((2, 2)), np.ones((2, 2)),
                                              (4.9, 4, 4), "summa"))  # not run as 4
    attempt("wait", lambda: d.gemm(a, a.T.copy(), "rows", wait="nap"))
    # a masked array on rank 0 (its mask was dropped: a wrong C; or, from blocks, the
    # local product refused it past the agreement, aborting the job)
    masked = np.ma.masked_array(a, mask=np.eye(4, 3, dtype=bool))
    for part in d.PARTITIONS:
        attempt(f"masked-{part}", lambda: d.gemm(masked, a.T.copy(), part))

    def blocks(x, y, part):  # this rank's blocks of x (4 x 3) and y (3 x 4), right ones
        if part == "splitk":  # K = 3 on 3 ranks: one column of x, one row of y each
            return x[:, rank:rank + 1], y[rank:rank + 1]
        layout = d.block_layout(4, 4, 3, comm.size, part)
        return x[layout.a_block(rank)], y[layout.b_block(rank)]

    for part in d.BLOCK_PARTITIONS:
        mine = blocks(masked if rank == 0 else a, a.T.copy(), part)
        attempt(f"masked-blocks-{part}", lambda: d.gemm_blocks(*mine, (4, 4, 3), part))
    import os
    os.environ["PORTGEMM_MPI_ROUTE"] = "pigeon"
    attempt("route", lambda: d.gemm_blocks(np.ones((2, 2)), np.ones((2, 2)), (4, 4, 4)))
    del os.environ["PORTGEMM_MPI_ROUTE"]
    # and the communicator still works after all of that
    report(f"after {rank} {comm.allreduce(1)}")
"""


@needs_mpi
def test_bad_input_raises_the_same_error_on_every_rank(tmp_path):
    done = run_script(3, tmp_path, ERRORS_JOB, timeout=60)
    assert done.returncode == 0, done.stderr
    by_label: dict[str, dict[int, str]] = {}
    for line in reported(tmp_path):
        label, rank, message = line.split(" ", 2)
        by_label.setdefault(label, {})[int(rank)] = message
    expected = {"shapes": ("ShapeError", "do not align"),
                "partition": ("PartitionError", "unknown partition 'bogus'"),
                "disagree": ("PartitionError", "ranks disagree"),
                "blocks": ("PartitionError", "ranks disagree"),
                "blockshape": ("ShapeError", "rank 0 of 3: SUMMA on a 3x1 grid gives"),
                "dtype": ("OperandTypeError", "int32"),
                "lists": ("OperandTypeError", "must be an array"),
                "device": ("RankSetupError", "rank 2 of 3"),
                "fraction": ("ShapeError", "three integers, got (4.9, 4, 4)"),
                "wait": ("PartitionError", "wait='nap'; use one of yield, spin"),
                "route": ("PartitionError", "PORTGEMM_MPI_ROUTE='pigeon'; use one of")}
    masked = ("OperandTypeError", "rank 0 of 3: masked arrays are not taken", "x.filled(0)")
    expected.update({f"masked-{part}": masked for part in ALL})
    expected.update({f"masked-blocks-{part}": masked for part in BLOCK_PARTITIONS})
    for label, fragments in expected.items():
        messages = by_label[label]
        assert set(messages) == {0, 1, 2}, (label, messages)
        assert len(set(messages.values())) == 1, (label, messages)  # identical everywhere
        assert all(f in messages[0] for f in fragments), (label, messages[0])
    assert by_label["after"] == {0: "3", 1: "3", 2: "3"}


@needs_mpi
def test_unknown_partition_on_the_command_line(tmp_path):
    done, data = run_cli(3, tmp_path, "--partition", "rows,bogus", "--sizes", "5",
                         timeout=60)
    assert done.returncode == 2 and data is None
    said = dict(re.findall(r"^portgemm\.distributed: rank (\d): (.*)$", done.stderr, re.MULTILINE))
    assert len(said) == 3, done.stderr
    assert set(said) == {"0", "1", "2"} and len(set(said.values())) == 1, done.stderr
    assert "PartitionError: rank 0 of 3: unknown partition 'bogus'" in said["0"]


@needs_mpi
@pytest.mark.parametrize("options, says", [
    (["--variant", "tiled", "--params", '{"tile_y": 0}'], "tile_y must be a positive"),
    (["--params", '{"tile_y": 4}'], "params need a named variant"),
    (["--dtype", "float64", "--variant", "wgmma"], "float32 only"),
    (["--backend", "host", "--partition", "rows", "--params", '{"num_threads": 0}'],
     "num_threads must be None or an integer >= 1"),
])
def test_parameters_a_variant_refuses_are_bad_input_on_every_rank(tmp_path, options, says):
    """Checked before anything runs, every rank saying why, exit 2 (the job was
    aborted with a traceback, exit 3, at the first product)."""
    done, data = run_cli(2, tmp_path, "--sizes", "5", *options, timeout=60)
    assert done.returncode == 2 and data is None, done.stderr
    said = dict(re.findall(r"^portgemm\.distributed: rank (\d): (.*)$", done.stderr,
                           re.MULTILINE))
    assert set(said) == {"0", "1"} and all(says in line for line in said.values()), said


@pytest.mark.parametrize("options, says", [
    (["--params", "{bad"], "not valid JSON"), (["--params", "[1]"], "JSON object"),
    (["--timeout", "-1"], "--timeout"), (["--json", "/nonexistent/dir/x.json"], "cannot write"),
])
def test_command_line_mistakes_are_status_2_before_any_work(options, says, capsys):
    from portgemm.distributed.__main__ import parse_args

    with pytest.raises(SystemExit) as exit_:
        parse_args(["--sizes", "5", *options])
    assert exit_.value.code == 2 and says in capsys.readouterr().err


FAILING_RANK_JOB = """
    import numpy as np
    from mpi4py import MPI
    from portgemm import distributed as d
    rank = MPI.COMM_WORLD.rank
    # rank 1's parameters are wrong; only its local product finds out, after the agreement
    schedule = "bogus" if rank == 1 else "static"
    local = d.LocalOptions(backend="host", variant="threads-rows", params={"schedule": schedule})
    a = np.ones((40, 30), np.float32)
    d.gemm(a, a.T.copy(), "rows", local=local)
    print("finished", rank, flush=True)
"""


@needs_mpi
def test_a_failing_rank_aborts_the_job_with_its_message(tmp_path):
    done = run_script(3, tmp_path, FAILING_RANK_JOB, timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr  # faults.ABORT_CODE
    assert "rank 1: (of 3) failed, aborting the job" in done.stderr
    assert "unknown schedule 'bogus'" in done.stderr
    assert "finished 0" not in done.stdout  # rank 0 never got its C: it was aborted


HUNG_JOB = """
    import time
    from mpi4py import MPI
    from portgemm.distributed import Watchdog
    comm = MPI.COMM_WORLD
    Watchdog(comm, 1.0).start()
    if comm.rank == 1:
        time.sleep(60)  # never reaches the barrier the others wait in
    comm.Barrier()
"""


@needs_mpi
def test_the_watchdog_aborts_a_hung_job(tmp_path):
    done = run_script(2, tmp_path, HUNG_JOB, timeout=30)
    assert done.returncode == 124, done.stderr  # faults.TIMEOUT_CODE
    assert "timed out after 1 s" in done.stderr


@needs_mpi
def test_command_line_timeout(tmp_path):
    # a serial triple loop on 1200^3 takes seconds; the watchdog stops it at 0.3 s
    done, data = run_cli(2, tmp_path, "--sizes", "1200", "--partition", "rows",
                         "--backend", "host", "--variant", "serial-ijk", "--timeout", "0.3",
                         timeout=60)
    assert done.returncode == 124 and data is None, done.stderr
    assert "timed out after 0.3 s (--timeout)" in done.stderr


# --- without mpi4py ------------------------------------------------------------------

def test_missing_mpi4py_names_the_install(monkeypatch, capsys):
    """The API raises BackendUnavailableError naming the install; the command line says
    it in one line, status 2 (a traceback, status 1 before)."""
    from portgemm import BackendUnavailableError, distributed
    from portgemm.distributed.__main__ import main

    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py now fails
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    a = np.ones((3, 3), np.float32)
    for call in (lambda: distributed.gemm(a, a, "rows"),
                 lambda: distributed.gemm_blocks(a, a, (3, 3, 3), "summa")):
        with pytest.raises(BackendUnavailableError, match=r'pip install "portgemm\[mpi\]"'):
            call()
    assert main(["--sizes", "3"]) == 2
    assert 'pip install "portgemm[mpi]"' in capsys.readouterr().err


def test_importing_the_package_does_not_start_mpi():
    code = ("import sys, portgemm.distributed, portgemm.distributed.report; "
            "print(sorted(m for m in sys.modules if m.startswith('mpi4py')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"


# --- layout, model and check, in this process ----------------------------------------

@pytest.mark.parametrize("ranks", range(1, 17))
def test_process_grid_is_the_largest_divisor_below_the_square_root(ranks):
    rows, cols = process_grid(ranks)
    assert rows * cols == ranks and cols <= rows
    assert cols == max(d for d in range(1, ranks + 1) if ranks % d == 0 and d * d <= ranks)


@pytest.mark.parametrize("n,parts", [(1, 1), (1, 4), (5, 4), (10, 3), (7, 7), (3, 5)])
def test_splits_cover_every_index_once(n, parts):
    for split in (even_ranges, padded_ranges):
        ranges = split(n, parts)
        assert len(ranges) == parts and [i for r in ranges for i in r] == list(range(n))
    assert [len(r) for r in padded_ranges(5, 4)] == [2, 2, 1, 0]      # the seed's padding
    workers = master_worker_ranges(n, parts)
    assert [i for r in workers for i in r] == list(range(n))
    assert all(len(r) == n // parts for r in workers[:-1])             # rest on the last


@pytest.mark.parametrize("shape,ranks,panel", [((7, 5, 7), 3, None), ((7, 5, 7), 3, 4),
                                               ((9, 9, 9), 6, None), ((9, 9, 9), 6, 2),
                                               ((2, 3, 1), 4, None), ((8, 8, 16), 4, 16)])
def test_summa_steps_cover_k_once_with_the_right_owners(shape, ranks, panel):
    layout = BlockLayout.for_ranks(*shape, ranks)
    steps = layout.steps(panel)
    pieces = [p for step in steps for p in step]
    assert [i for p in pieces for i in range(p.k0, p.k1)] == list(range(shape[2]))
    for p in pieces:
        assert set(range(p.k0, p.k1)) <= set(layout.a_k_ranges[p.a_owner])
        assert set(range(p.k0, p.k1)) <= set(layout.b_k_ranges[p.b_owner])
    if panel:
        assert all(sum(p.width for p in step) <= panel for step in steps)
    # the blocks of C tile C exactly
    cover = np.zeros(shape[:2], int)
    for r in range(ranks):
        cover[layout.c_block(r)] += 1
    assert (cover == 1).all()


def test_model_volumes():
    from portgemm.distributed.model import predict, volume

    for partition in ALL:
        assert volume(partition, 1, 100, 100, 100).bytes == 0
    n = 4096
    summa = [volume("summa", p, n, n, n, operands="blocks").busiest_bytes for p in (4, 16, 64)]
    assert summa[0] > summa[1] > summa[2]  # each rank moves less as the grid grows
    rows = [volume("rows", p, n, n, n).busiest_bytes for p in (4, 16, 64)]
    assert rows[0] < rows[1] < rows[2]  # the root sends B to every rank
    assert volume("rows", 16, n, n, n).root_buffer_bytes == 16 * (n // 16 * n + n * n) * 4
    p = predict("summa", 16, n, n, n, gbps=100, operands="blocks")
    assert 0 < p.efficiency <= p.overlapped_efficiency <= 1


@pytest.mark.parametrize("options, says", [
    (["--nodes", "0"], "--nodes must be >= 1, got 0"),
    (["--nodes", "4,x"], "--nodes wants comma-separated integers, got '4,x'"),
    (["--gbps", "0"], "--gbps must be > 0, got 0"), (["--gbps", "-100"], "--gbps must be > 0"),
    (["--tflops", "0"], "--tflops must be > 0, got 0"),
    (["--itemsize", "0"], "--itemsize must be >= 1, got 0"),
    (["--sizes", "0"], "--sizes: size '0' has a dimension below 1"),
    (["--alpha-us", "-1"], "--alpha-us must be >= 0"),
    (["--alpha-us", "nan"], "--alpha-us must be a finite number"),
])
def test_model_command_line_mistakes_are_status_2_before_any_work(options, says, capsys):
    """One line on stderr and no table (ZeroDivisionError and ValueError tracebacks
    after the table's header before, or rows of negative times)."""
    from portgemm.distributed.model import _main

    with pytest.raises(SystemExit) as exit_:
        _main(options)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "", out
    assert says in err and len(err.splitlines()) == 1, err


def test_model_command_line_prints_a_row_per_case(capsys):
    from portgemm.distributed.model import _main

    _main(["--nodes", "4,16", "--sizes", "1024,8x8x100000"])
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == 2 * 2 * len(ALL)
    assert rows[0].startswith("| 4 | 1024x1024x1024 | p2p |")
    assert rows[-1].startswith("| 16 | 8x8x100000 | splitk |")


def test_check_finds_a_wrong_block_fully_and_projected(monkeypatch):
    from portgemm.distributed import report

    a, b = report.make_operands(40, 30, 20, "float32", 1)
    c = (a.astype(np.float64) @ b).astype(np.float32)
    assert report.check(c, a, b, 1)[0] < 1e-6
    c[:5, :5] += 1.0
    assert report.check(c, a, b, 1) [0] > 1e-3
    monkeypatch.setattr(report, "FULL_CHECK_LIMIT", 0)  # the O(n^2) check of big runs
    relerr, how = report.check(c, a, b, 1)
    assert how == "projected" and relerr > 1e-3
    c[0, 0] = np.nan
    assert not report.check(c, a, b, 1)[0] <= 1.0


def test_grid_layout_blocks_tile_c_and_hold_all_of_k():
    from portgemm.distributed import block_layout

    for partition, ranks, grid in (("2d", 6, (3, 2)), ("rows", 4, (4, 1)), ("2d", 5, (5, 1))):
        layout = block_layout(7, 5, 3, ranks, partition)
        assert (layout.rows, layout.cols) == grid
        cover = np.zeros((7, 5), int)
        for r in range(ranks):
            cover[layout.c_block(r)] += 1
            assert layout.a_block(r)[1] == slice(0, 3) and layout.b_block(r)[0] == slice(0, 3)
            assert layout.a_block(r)[0] == layout.c_block(r)[0]
            assert layout.b_block(r)[1] == layout.c_block(r)[1]
        assert (cover == 1).all()


def test_model_of_resident_operands():
    from portgemm.distributed.model import volume

    n, w = 16384, 4
    two = volume("summa", 2, n, n, n, w, operands="resident")
    assert two.bus_bytes == n * n * w               # half of B down, the other half up
    assert two.busiest_bytes == volume("summa", 2, n, n, n, w, operands="blocks").busiest_bytes
    assert volume("summa", 4, n, n, n, w, operands="resident").bus_bytes == n * n * w
    assert volume("summa", 2, n, n, n, w, operands="blocks").bus_bytes == 0
    for partition in ("rows", "2d"):
        v = volume(partition, 4, n, n, n, w, operands="resident")
        assert v.bytes == v.busiest_bytes == v.bus_bytes == 0
    assert volume("splitk", 4, 64, 32, n, w, operands="resident").bus_bytes == 2 * 64 * 32 * w


def test_resident_summa_takes_owners_in_turn_in_rounds():
    from portgemm.distributed.summa_device import interleaved

    for shape, ranks, panel in (((8, 8, 16), 2, 2), ((9, 9, 9), 3, None), ((9, 9, 30), 4, 4),
                                ((5, 5, 7), 6, 3)):
        steps = BlockLayout.for_ranks(*shape, ranks).steps(panel)
        order = interleaved(steps)
        assert sorted(order, key=lambda s: s[0].k0) == steps  # every step, once
        owners = [tuple((p.a_owner, p.b_owner) for p in s) for s in order]
        groups = len(set(owners))
        first = owners[:groups]
        assert len(set(first)) == groups  # each owner's first step comes before any second
    two = interleaved(BlockLayout.for_ranks(8, 8, 16, 2).steps(2))
    assert [s[0].b_owner for s in two] == [0, 1] * 4  # 2 GPUs: every round is an exchange


def test_resident_copies_wait_for_the_operands_writes():
    """The copy queue's download and device copy read what the operands' queue wrote
    just before: ``to_device``'s blocking write may return before the device has the
    data, here behind a product still running on that queue. Resident SUMMA sent stale
    panels (a wrong C block now and then)."""
    from conftest import usable_devices

    from portgemm.distributed.resident import Side

    if not usable_devices():
        pytest.skip("no OpenCL device")
    device = usable_devices()[0]
    big = portgemm.to_device(np.ones((384, 384), np.float32), device)
    wrong = 0
    for it in range(20):
        busy = portgemm.matmul(big, big)  # queued, not waited for
        values = np.full((2, 3), it + 0.5)
        block = portgemm.to_device(values, device)
        side = Side(block)
        host = np.empty((1, 2))
        side.download(host, block, (1, 1)).wait()
        copied = side.empty((2, 3))
        side.copy(copied, (0, 0), block, (0, 0), (2, 3)).wait()
        wrong += (host != it + 0.5).any() + (copied.get() != values).any()
        busy.get()
    assert wrong == 0
