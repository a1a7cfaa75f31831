"""Running one experiment: its points in order, under the budget rule, with a progress
bar, then NAME.json, NAME.md and NAME.png in the output folder."""

from __future__ import annotations

import dataclasses
import datetime
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import inputs, plot
from .budget import SMALL_FLOPS, Budget, config_key, memory_problem
from .fit import fit_model
from .markdown import write_markdown
from .measure import (Places, calls_left, measure, measure_job, probe, self_contained,
                      warm_up)
from .record import SKIPPED, Record, read_json, write_json
from .spec import MODES, Experiment, Point

PLOT_HINT = 'plots need matplotlib: pip install "portgemm[plot]"'


@dataclass
class Outcome:
    experiment: Experiment
    records: list[Record]
    files: list[Path]
    plot_marks: dict | None  # what the plot marked ({"wrong": n, "skipped": n}); None: no plot

    @property
    def plotted(self) -> bool:
        return self.plot_marks is not None

    @property
    def wrong(self) -> list[Record]:
        return [r for r in self.records if r.status == "WRONG"]


def command_line(name: str, device: str | None, mode: str, out: Path,
                 budget_s: float | None, time_limit_s: float | None = None) -> str:
    """The command that reruns this one experiment as it was run."""
    parts = ["python -m portgemm.experiments run", name]
    if device:
        parts.append(f"--device {device}")
    if mode == "quick":
        parts.append("--quick")
    elif mode != "full":
        parts.append(f"--mode {mode}")
    if budget_s is not None:
        parts.append(f"--budget {budget_s:g}")
    if time_limit_s is not None:
        parts.append(f"--time-limit {time_limit_s:g}")
    parts.append(f"--out {out}")
    return " ".join(parts)


def run_point(experiment: Experiment, point: Point, places: Places, budget: Budget,
              warmed: set) -> Record:
    device_name, backend = places.describe(point)
    dtype = experiment.dtype
    record = Record.for_point(experiment, point, device=device_name, backend=backend,
                              dtype=dtype)
    if point.unavailable:
        return record.mark(SKIPPED, point.unavailable)
    # only a device point's operands go to the device (a job's ranks pick their own)
    target_device = places.device.device if point.on == "device" else None
    reason = (budget.over_total()
              or memory_problem(point, target_device, np.dtype(dtype).itemsize))
    if reason:
        return record.mark(SKIPPED, reason)
    key = config_key(point)
    # a self-contained place (an MPI job) warms up and checks in its own processes;
    # its points are predicted from its earlier ones only (a probe would be a job)
    job = self_contained(point)
    if key not in warmed and not job:
        warm_up(point, places, dtype)
        warmed.add(key)
    calls = calls_left(point, places)
    predicted = budget.predict(key, point.flops, calls) if calls else None
    if predicted is None and point.flops > SMALL_FLOPS and not job:
        probe(point, places, budget, dtype)
        predicted = budget.predict(key, point.flops)
    record.predicted_s = predicted[0] if predicted else None
    reason = budget.over_point(predicted)
    if reason:
        return record.mark(SKIPPED, reason)
    if job:
        measure_job(point, record, places)
    else:
        a, b = inputs.operands(experiment.inputs, point.size, dtype)
        measure(point, record, places, budget.mode, a, b,
                inputs.reference(experiment.inputs, point.size, dtype))
    if record.wall_ms is not None:
        budget.learn(key, point.size, record.wall_ms / 1e3)
    return record


def add_vendor_percent(records: list[Record]) -> None:
    """% of the vendor library: its time over ours, at the same size and panel."""
    vendors = {(r.panel, r.m, r.n, r.k): r for r in records
               if r.place == "vendor" and r.time_ms is not None}
    for r in records:
        ref = vendors.get((r.panel, r.m, r.n, r.k))
        if ref is not None and r.time_ms:
            r.pct_of_vendor = 100.0 * ref.time_ms / r.time_ms
            r.vendor = ref.backend


def _devices(places: Places, points: list[Point], records: list[Record]) -> str:
    """The device in words: the --device's, or those a registered place reported (each
    rank's of an MPI job); '' for host code alone."""
    if any(p.on in ("device", "vendor") for p in points):
        return f"{places.device.device.name} ({places.device.label})"
    return ", ".join(sorted({r.device for r in records if r.place != "host" and r.device}))


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _progress(total: int, name: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=name, disable=not enabled, leave=True, file=sys.stderr,
                unit="point")


def run_experiment(experiment: Experiment, *, device: str | None = None, mode: str = "full",
                   out: Path | str = ".", budget_s: float | None = None,
                   time_limit_s: float | None = None, progress: bool = True) -> Outcome:
    chosen = MODES[mode]
    if time_limit_s is not None:
        chosen = dataclasses.replace(chosen, total_budget_s=time_limit_s)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    places = Places(device)
    budget = Budget(chosen, budget_s if budget_s is not None else chosen.point_budget_s)
    points = experiment.plan(chosen, places.device.device if experiment.per_device else None)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = _load()
    clock = time.monotonic()
    records, warmed = [], set()
    bar = _progress(len(points), experiment.name, progress)
    for point in points:
        bar.set_postfix_str(f"{point.series} {point.x}", refresh=False)
        records.append(run_point(experiment, point, places, budget, warmed))
        bar.update(1)
    bar.close()
    if experiment.relative_to_vendor:
        add_vendor_percent(records)
    fit_model(records)

    command = command_line(experiment.name, device, mode, out, budget_s, time_limit_s)
    meta = {
        "experiment": experiment.name, "summary": experiment.summary,
        "source": experiment.source, "mode": mode, "command": command,
        "timed": experiment.timed, "point_budget_s": budget.point_s,
        "time_limit_s": chosen.total_budget_s,
        "started": started.isoformat(timespec="seconds"),
        "elapsed_s": round(time.monotonic() - clock, 1),
        "device": _devices(places, points, records),
        "host": places.host.device.name,
        "cpu_count": os.cpu_count(),
        # other work on a shared machine shows here (1-minute load, start and end)
        "load_average": [load_before, _load()],
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
    }
    write_json(out / f"{experiment.name}.json", meta, records)
    return write_outputs(experiment, meta, records, out)


def write_outputs(experiment: Experiment, meta: dict, records: list[Record],
                  out: Path) -> Outcome:
    """NAME.png (when matplotlib is there) and NAME.md beside NAME.json."""
    files = [out / f"{experiment.name}.json", out / f"{experiment.name}.md"]
    png = out / f"{experiment.name}.png"
    marks = plot.draw(experiment, records, png, meta)
    if marks is not None:
        files.append(png)
    elif png.exists():
        png.unlink()  # a plot from an earlier run would no longer match the table
    write_markdown(files[1], experiment, meta, records,
                   png.name if marks is not None else None, PLOT_HINT)
    return Outcome(experiment, records, files, marks)


def redraw(experiment: Experiment, out: Path | str) -> Outcome:
    """NAME.md and NAME.png again from NAME.json, without measuring (after a change to
    the table or the plot, or to draw on a machine with matplotlib)."""
    out = Path(out)
    meta, records = read_json(out / f"{experiment.name}.json", experiment.name)
    # the report's numbers are the experiment's, not the run's: take today's
    points = {(p.series, p.x, p.panel, p.size): p
              for p in experiment.plan(MODES.get(meta.get("mode"), MODES["full"]))}
    for r in records:
        point = points.get((r.series, r.x, r.panel, (r.m, r.n, r.k)))
        if point is not None:
            r.seed, r.seed_note = point.seed, point.seed_note
    return write_outputs(experiment, meta, records, out)
