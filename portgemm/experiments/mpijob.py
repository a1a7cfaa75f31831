"""The "mpi" place: points measured by a job of ``python -m portgemm.distributed`` under
``mpiexec -n P``.

One job per process count and size runs every partition of the experiment at once
(starting MPI and importing portgemm on every rank costs a second or two, more than
the products of the small sizes), and its records serve the points it covered. The job
does what the measurement of other places does in this process: it warms up, repeats
(``--reps``), takes the median call and checks C against float64 on rank 0, where C
stays; so the place is self-contained (measure.register_place) and hands back the
job's relative error, not C. The job draws its own operands (uniform in [0, 1), as the
experiments' "uniform" inputs, from another seed).

A point's params say the job's local product besides ``ranks`` and ``reps``: ``backend``,
``variant`` and ``dtype`` (:data:`LOCAL`; absent ones are the command's defaults). The
job does not time its one-rank baseline (``--no-one-rank``): a point's parallel
efficiency is the P = 1 job's compute time of the same partition and size over P x its
wall time (see :func:`runner`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from ..errors import BackendUnavailableError
from .measure import Places, Timing
from .spec import Point

JOB_TIMEOUT_S = 600  # the job's own watchdog (--timeout); the process gets 30 s more
# what each record keeps of the job's (docs/distributed.md names them)
KEPT = ("comm_ms", "compute_ms", "comm_max_ms", "model_comm_ms", "grid", "operands",
        "check")
LOCAL = ("backend", "variant", "dtype")  # the point's params passed on as --NAME


def mpiexec() -> str:
    """The mpiexec beside this Python (the mpich wheel's), else the one on PATH."""
    if importlib.util.find_spec("mpi4py") is None:
        raise BackendUnavailableError('mpi4py is not installed: pip install "portgemm[mpi]"')
    found = (shutil.which("mpiexec", path=str(Path(sys.executable).parent))
             or shutil.which("mpiexec"))
    if not found:
        raise BackendUnavailableError('no mpiexec: pip install "portgemm[mpi]" brings '
                                      "the mpich wheel's")
    return found


def job_environment() -> dict[str, str]:
    """This process's environment for an mpiexec job, with what Open MPI's mpiexec needs
    to start where MPICH's starts unasked: more ranks than cores (a laptop running the
    4-rank points), and, for a root user (a container's), its consent to run as root.
    Variables the user set win; MPICH ignores these."""
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def job_args(size: tuple[int, int, int], partitions: Sequence[str], reps: int,
             device: str | None, local: dict | None = None) -> list[str]:
    """What the job is asked for (the --json and --timeout it is run with aside); ``local``:
    the local product's backend, variant and dtype (see :data:`LOCAL`)."""
    local = local or {}
    args = ["-m", "portgemm.distributed", "--partition", ",".join(partitions),
            "--sizes", "x".join(map(str, size)), "--reps", str(reps), "--no-one-rank"]
    for name in LOCAL:
        if name in local:
            args += [f"--{name}", str(local[name])]
    # the host backend runs on the host whatever the experiment's --device
    return args + (["--device", device] if device and local.get("backend") != "host" else [])


WARNING_LINE = re.compile(r":\d+: \w*Warning: ")  # what warnings.warn prints first


def complaints(output: str) -> list[str]:
    """The lines of a job's output that say something, without warnings (a library's
    warning at import, printed before the job's own words, said nothing of the failure)
    and the source lines they quote; all of them where nothing else is left."""
    lines = [line for line in output.splitlines() if line.strip()]
    said = [line.strip() for line in lines
            if not line[:1].isspace() and not WARNING_LINE.search(line)]
    return said or [line.strip() for line in lines]


def run_job(command: list[str]) -> dict[str, dict]:
    """The job's records by partition; RuntimeError naming the failure when it wrote none
    (a failing rank aborts the job with status 3, a timeout gives 124)."""
    out = Path(command[command.index("--json") + 1])
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=JOB_TIMEOUT_S + 30, env=job_environment())
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"the MPI job did not end within {JOB_TIMEOUT_S + 30} s") from None
    if not out.exists():  # the job's first complaint says why (its ranks say it first)
        said = complaints(done.stderr or done.stdout)
        raise RuntimeError(f"the MPI job exited with status {done.returncode}"
                           + (f": {said[0][:300]}" if said else ""))
    data = json.loads(out.read_text())
    return {r["partition"]: {**r, "devices": sorted(set(data["devices"]))}
            for r in data["records"]}


def job(ranks: int, size: tuple[int, int, int], partitions: Sequence[str], reps: int,
        device: str | None, local: dict | None = None) -> dict[str, dict] | Exception:
    """Run one job: its records by partition, each with the command that reruns it, or
    the exception that stopped it (every point of the job shares its failure)."""
    args = job_args(size, partitions, reps, device, local)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "job.json"
        try:
            records = run_job([mpiexec(), "-n", str(ranks), sys.executable, *args,
                               "--json", str(out), "--timeout", str(JOB_TIMEOUT_S)])
        except Exception as exc:
            return exc
    shown = shlex.join(["mpiexec", "-n", str(ranks), "python", *args])
    return {partition: {**r, "job": shown} for partition, r in records.items()}


def _key(point: Point, ranks: int) -> tuple:
    """The job that measures the point at ``ranks`` processes, in Places.store."""
    local = tuple((name, point.params.get(name)) for name in LOCAL)
    return ("mpi", ranks, point.size, point.params["reps"], local)


def runner(partitions: Sequence[str]):
    """The place's run function for experiments whose points are these partitions
    (Point.variant), with ``ranks`` and ``reps`` (and the local product, :data:`LOCAL`) in
    Point.params.

    efficiency_pct: the P = 1 job's compute time of the same partition and size / (P x
    this wall time), empty where that job did not run (measured before, as the points go
    by ranks). One job's own compute is the baseline rather than a product timed apart,
    which ran slower than the same product inside the call (eff 101-118% at P = 1)."""

    def run(point: Point, places: Places, a=None, b=None, poison=None) -> Timing:
        ranks, reps = point.params["ranks"], point.params["reps"]
        key = _key(point, ranks)
        if key not in places.store:
            local = {name: point.params[name] for name in LOCAL if name in point.params}
            places.store[key] = job(ranks, point.size, partitions, reps, places.device_spec,
                                    local)
        found = places.store[key]
        if isinstance(found, Exception):
            raise found
        record = found.get(point.variant)
        if record is None:
            raise RuntimeError(f"the MPI job has no record of {point.variant!r}")
        extra = {name: record.get(name) for name in KEPT}
        alone = places.store.get(_key(point, 1))
        alone = alone.get(point.variant) if isinstance(alone, dict) else None
        baseline = alone and alone.get("compute_ms")
        extra["baseline_ms"] = baseline
        extra["efficiency_pct"] = (100 * baseline / (ranks * record["total_ms"])
                                   if baseline and record["total_ms"] else None)
        extra["job"] = record["job"]
        return Timing(None, record["total_ms"], record["total_ms"], dict(point.params),
                      relerr=record["relerr"], tolerance=record["tolerance"],
                      reps=record["reps"], device=", ".join(record["devices"]), extra=extra)

    return run


def calls(partitions: Sequence[str]):
    """The place's budget count: a job not yet run costs each partition's warm-up and
    repetitions at the point's size; its other points cost nothing more."""

    def count(point: Point, places: Places) -> int:
        if _key(point, point.params["ranks"]) in places.store:
            return 0
        return len(partitions) * (1 + point.params["reps"])

    return count
