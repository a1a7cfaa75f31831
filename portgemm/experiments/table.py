"""The table of an experiment: one row per point, the report's number beside ours, and
every point's status (a wrong or skipped point keeps its row)."""

from __future__ import annotations

from tabulate import tabulate

from .record import OK, WRONG, Record
from .spec import Experiment


def _num(value, spec: str) -> str:
    return "" if value is None else format(value, spec)


def plain_number(value) -> str:
    """Three significant digits, whole numbers from 100 up: never an exponent."""
    if value is None:
        return ""
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def params_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items() if v is not None)


def shared_params(records: list[Record]) -> dict[str, dict]:
    """Per variant run at least twice, the parameters all its rows share: said once under
    the table, so each row shows only what changes."""
    shared = {}
    for variant in dict.fromkeys(r.variant for r in records):
        rows = [r.params for r in records if r.variant == variant]
        if len(rows) > 1:
            common = {k: v for k, v in rows[0].items() if all(p.get(k) == v for p in rows[1:])}
            if common:
                shared[variant] = common
    return shared


def status_text(record: Record) -> str:
    if record.status == OK:
        return "ok"
    if record.status == WRONG:
        return f"**WRONG**: {record.reason}"
    return f"{record.status}: {record.reason}"


def seed_text(record: Record) -> str:
    if record.seed is None:
        return record.seed_note
    unit = "%" if record.seed_unit == "%" else ""
    text = f"{record.seed:g}{unit}"
    return f"{text} ({record.seed_note})" if record.seed_note else text


def _extra(record: Record, key: str, spec: str) -> str:
    value = record.extra.get(key)
    return format(value, spec) if isinstance(value, (int, float)) else str(value or "")


def markdown_table(experiment: Experiment, records: list[Record]) -> str:
    panels = any(r.panel for r in records)
    seeds = any(r.seed is not None or r.seed_note for r in records)
    models = any(r.model is not None for r in records)
    vendor = next((r.vendor for r in records if r.vendor), "")
    headers = (["panel"] if panels else []) + [
        "series", experiment.plot.xlabel or "x", "M×N×K", "where", "params",
        f"{experiment.timed} ms" if experiment.timed == "kernel" else "wall ms", "GFLOPS"]
    headers += [header for header, _, _ in experiment.extra_columns]
    if vendor:
        headers.append(f"% of {vendor}")
    if seeds:
        headers.append(f"report ({experiment.seed_unit})")
    if models:
        headers += ["model ms", "model, fitted ms"]
    headers += ["rel. error", "status"]
    shared = shared_params(records)
    rows = []
    for r in records:
        own = {k: v for k, v in r.params.items() if k not in shared.get(r.variant, {})}
        row = ([r.panel] if panels else []) + [
            r.series, str(r.x) + (f" (**{r.highlight}**)" if r.highlight else ""),
            f"{r.m}×{r.n}×{r.k}", r.backend, params_text(own),
            plain_number(r.time_ms) + ("" if r.timed == experiment.timed or r.time_ms is None
                              else f" ({r.timed})"),
            plain_number(r.gflops)]
        row += [_extra(r, key, spec) for _, key, spec in experiment.extra_columns]
        if vendor:
            row.append(_num(r.pct_of_vendor, ".1f"))
        if seeds:
            row.append(seed_text(r))
        if models:
            row += [plain_number(r.model), plain_number(r.model_fit)]
        row += [_num(r.relerr, ".1e"), status_text(r)]
        rows.append(row)
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    notes = [f"Every `{variant}` row also has {params_text(common)}."
             for variant, common in shared.items()]
    return "\n\n".join([table] + notes)
