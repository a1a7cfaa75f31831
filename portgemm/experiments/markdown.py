"""NAME.md: what was run and how the report was read, the command, the table with the
report's numbers beside ours, the skip rule, and the plot."""

from __future__ import annotations

from pathlib import Path

from . import budget
from .record import Record
from .spec import Experiment
from .table import markdown_table

TIMING_WORDS = {
    "kernel": "kernel ms: the OpenCL event time of the GEMM kernel, median",
    "wall": "wall ms: the whole call, uploads, kernel and download included, median",
}

HOST_WORDS = "wall ms: the call's time (host code has no transfers), median"

MODEL_WORDS = (
    "- model ms: the cost model's prediction for the point, as it is; model, fitted: the "
    "same times one factor per panel (the geometric mean of measured / predicted over the "
    "panel's correct points, `portgemm/experiments/fit.py`), the dotted curve of the plot. "
    "A **bold** label marks the point the model chooses; the plot marks it with a star and "
    "the fastest measured point of its panel with a diamond")


def write_markdown(path: Path, experiment: Experiment, meta: dict, records: list[Record],
                   png: str | None, plot_hint: str) -> None:
    counts = {s: sum(r.status == s for r in records) for s in ("ok", "WRONG", "skipped", "failed")}
    lines = [
        f"# {experiment.name}",
        "",
        f"{experiment.summary} ({experiment.source}).",
        "",
        "```bash",
        meta["command"],
        "```",
        "",
        f"- device: {meta['device'] or '(host only)'}; host: {meta['host']} "
        f"({meta['cpu_count']} CPUs; 1-minute load average {meta['load_average'][0]} at the "
        f"start, {meta['load_average'][1]} at the end)",
        f"- mode: {meta['mode']}, {meta['point_budget_s']:g} s budget per point"
        + (f", {meta['time_limit_s']:g} s time limit" if meta.get("time_limit_s") else "")
        + "; "
        f"started {meta['started']}, took {meta['elapsed_s']:g} s",
        f"- points: {len(records)} — " + ", ".join(f"{n} {s}" for s, n in counts.items() if n),
        "- " + (experiment.time_words
                or (HOST_WORDS if all(r.place == "host" for r in records)
                    else TIMING_WORDS[experiment.timed]))
        + ("; host code: the call's wall time" if any(r.place == "host" for r in records)
           and experiment.timed == "kernel" else "") + "; GFLOPS from that time",
        "- every point is checked against float64 (relative Frobenius error); a wrong one "
        "is marked **WRONG** here and with a red cross in the plot",
    ]
    timed = [r for r in records if r.status in ("ok", "WRONG")]
    once = sum(r.reps == 0 for r in timed)
    if once:  # "median" above is of the repeated runs: these had none
        lines.append(f"- {once} of {len(timed)} points timed once, their checked call "
                     f"alone: it outlasted the mode's time for repeats, so it is no median")
    if any(r.model is not None for r in records):
        lines.append(MODEL_WORDS)
    lines += [
        "",
        "## How the report was read",
        "",
        experiment.reading.strip(),
        "",
    ]
    if experiment.report_says:
        lines += ["## What the report found", "", experiment.report_says.strip(), ""]
    lines += ["## Results", "", markdown_table(experiment, records), ""]
    found = experiment.findings(records) if experiment.findings else []
    if found:
        lines += ["## In this run", ""] + [f"- {line}" for line in found] + [""]
    if meta.get("OPENBLAS_CORETYPE") and "numpy" in {r.backend for r in records}:
        lines += [f"Note: OPENBLAS_CORETYPE={meta['OPENBLAS_CORETYPE']} was set; it can slow "
                  "numpy's BLAS (run with `env -u OPENBLAS_CORETYPE`).", ""]
    lines += ["## Plot", ""]
    lines += [f"![{experiment.name}]({png})" if png else f"No plot written: {plot_hint}.", ""]
    lines += ["## When a point is skipped", "", budget.RULE, ""]
    path.write_text("\n".join(lines))
