"""NAME.png: the figure a reader of the report expects (curves over a sweep, grouped bars
for a ladder), with the report's numbers drawn beside ours, wrong points marked with a
red cross and skipped ones shown at the foot of the axes with their reason below.

matplotlib is optional (``pip install "portgemm[plot]"``): without it :func:`draw`
returns None and the table and JSON are still written.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from .record import Record
from .spec import Experiment

SKIP_COLOR = "0.55"
LEGEND_INSIDE = 6  # more entries than this go beside the axes
LEGEND_CHARACTERS = 44  # a line of a legend beside the axes, wrapped past it (3.4 in)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")  # files only; never a window
    import matplotlib.pyplot as plt

    return plt


def _ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def _y(record: Record, metric: str):
    return record.pct_of_vendor if metric == "pct_of_vendor" else record.time_ms


def _ylabel(experiment: Experiment, records: list[Record]) -> str:
    if experiment.plot.y == "pct_of_vendor":
        vendor = next((r.vendor for r in records if r.vendor), "vendor")
        return f"% of {vendor} (same run)"
    return f"time (ms, {experiment.timed})"


class _Marks:
    """Counts what was marked, so callers (and tests) can see that it was."""

    def __init__(self):
        self.wrong = 0
        self.skipped = 0
        self.reasons: dict[str, list[str]] = {}  # reason -> where ("series @ x")

    def note(self, record: Record, what: str):
        self.reasons.setdefault(what, []).append(f"{record.series} @ {record.x}")

    @property
    def notes(self) -> list[str]:
        """One line a reason, naming the points it applies to."""
        return [f"{', '.join(where)}: {what}" for what, where in self.reasons.items()]

    def skip(self, ax, x, record: Record):
        self.skipped += 1
        ax.plot([x], [0.03], marker="x", color=SKIP_COLOR, transform=ax.get_xaxis_transform(),
                clip_on=False, linestyle="none")
        ax.annotate(record.status, (x, 0.06), xycoords=ax.get_xaxis_transform(),
                    rotation=90, fontsize=7, color=SKIP_COLOR, ha="center", va="bottom")
        self.note(record, f"{record.status}: {record.reason}")

    def wrong_point(self, ax, x, y, record: Record):
        self.wrong += 1
        ax.plot([x], [y], marker="X", markersize=12, color="red", linestyle="none", zorder=5)
        ax.annotate("WRONG", (x, y), textcoords="offset points", xytext=(4, 6),
                    color="red", fontsize=8, fontweight="bold")
        self.note(record, f"WRONG ({record.reason})")


def _positions(records: list[Record]):
    """x positions: the values themselves when numeric, else their order."""
    xs = _ordered(r.x for r in records)
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    return (lambda x: x) if numeric else (lambda x: xs.index(x)), numeric, xs


def _draw_lines(ax, experiment: Experiment, records: list[Record], colors, marks: _Marks):
    spec = experiment.plot
    where, numeric, xs = _positions([r for r in records if r.series not in spec.reference_lines])
    for series in _ordered(r.series for r in records):
        rows = [r for r in records if r.series == series]
        color = colors[series]
        if series in spec.reference_lines:
            for r in rows:
                if r.shown:  # a time of another kind than the axis's says so, as the table
                    other = spec.y == "time_ms" and r.timed != experiment.timed
                    ax.axhline(_y(r, spec.y), color=color, linestyle=":",
                               label=f"{series} ({r.timed})" if other else series)
                elif r.status != "ok":
                    marks.note(r, f"{r.status}: {r.reason}")
            continue
        drawn = [r for r in rows if r.shown and _y(r, spec.y) is not None]
        ax.plot([where(r.x) for r in drawn], [_y(r, spec.y) for r in drawn], marker="o",
                color=color, label=series)
        seeds = [r for r in rows if r.seed is not None]
        if seeds:
            ax.plot([where(r.x) for r in seeds], [r.seed for r in seeds], marker="o",
                    markerfacecolor="none", linestyle="--", color=color, alpha=0.7,
                    label=f"{series} (report)")
        for key, label in spec.extra_lines if spec.y == "time_ms" else ():
            parts = [r for r in drawn if isinstance(r.extra.get(key), (int, float))]
            ax.plot([where(r.x) for r in parts], [r.extra[key] for r in parts], marker="v",
                    markersize=4, linestyle="-.", color=color, alpha=0.7, label=label)
        fitted = [r for r in rows if r.model_fit is not None and spec.y == "time_ms"]
        if fitted:  # one legend entry for every series' model curve
            ax.plot([where(r.x) for r in fitted], [r.model_fit for r in fitted], marker="s",
                    markersize=3, linestyle=":", color=color, alpha=0.8,
                    label="model, fitted (dotted, each series' colour)")
        for r in rows:
            if r.status == "WRONG" and _y(r, spec.y) is not None:
                marks.wrong_point(ax, where(r.x), _y(r, spec.y), r)
            elif not r.shown:
                marks.skip(ax, where(r.x), r)
    _mark_choices(ax, [r for r in records if r.series not in spec.reference_lines], where,
                  spec.y)
    if numeric:
        if spec.logx:
            ax.set_xscale("log", base=2)
            xs = _spread(sorted(xs))
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs], rotation=45 if len(xs) > 8 else 0)
    else:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(x) for x in xs], rotation=30, ha="right")


def _spread(values: list, ratio: float = 1.15) -> list:
    """Tick values on a log axis, leaving out any within ``ratio`` of the one before
    (264 beside 256 would print over it)."""
    kept = []
    for v in values:
        if not kept or v <= 0 or kept[-1] <= 0 or v / kept[-1] >= ratio:
            kept.append(v)
    return kept


def _mark_choices(ax, records: list[Record], where, metric: str):
    """A star on each highlighted point (a model's choice), on its measurement or, when
    it has none, on the model's curve; and beside it a diamond on the fastest measured
    point of the panel, so that the two can be compared at a glance."""
    chosen = [r for r in records if r.highlight]
    if not chosen:
        return
    for r in chosen:
        y = _y(r, metric) if r.shown else r.model_fit
        if y is None:
            continue
        ax.plot([where(r.x)], [y], marker="*", markersize=17, color="gold",
                markeredgecolor="black", linestyle="none", zorder=7, label=r.highlight)
    measured = [r for r in records if r.status == "ok" and r.shown and _y(r, metric)]
    if measured:
        best = min(measured, key=lambda r: _y(r, metric))
        ax.plot([where(best.x)], [_y(best, metric)], marker="D", markersize=9,
                markerfacecolor="none", markeredgecolor="black", markeredgewidth=1.6,
                linestyle="none", zorder=8, label="fastest measured")


def _draw_bars(ax, experiment: Experiment, records: list[Record], colors, marks: _Marks):
    spec = experiment.plot
    groups = _ordered(r.x for r in records)
    series_all = _ordered(r.series for r in records)
    seed_labelled = False
    for g, group in enumerate(groups):
        members = [s for s in series_all if any(r.x == group and r.series == s for r in records)]
        width = 0.8 / max(len(members), 1)
        for i, series in enumerate(members):
            r = next(r for r in records if r.x == group and r.series == series)
            x = g - 0.4 + width * (i + 0.5)
            y = _y(r, spec.y)
            if r.shown and y is not None:
                wrong = r.status == "WRONG"
                ax.bar(x, y, width * 0.95, color="white" if wrong else colors[series],
                       edgecolor="red" if wrong else colors[series],
                       hatch="xx" if wrong else None, label=series)
                if wrong:
                    marks.wrong_point(ax, x, y, r)
            else:  # no bar (a log axis has no zero); the mark and the note say why
                marks.skip(ax, x, r)
            if r.seed is not None:
                ax.plot([x], [r.seed], marker="D", color="black", linestyle="none",
                        markersize=5, label=None if seed_labelled else "report", zorder=6)
                seed_labelled = True
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([str(g) for g in groups], rotation=20 if len(groups) > 4 else 0,
                       ha="right" if len(groups) > 4 else "center")
    if spec.y == "pct_of_vendor":
        ax.axhline(100, color="0.3", linewidth=0.8, linestyle="--")


def _span(records: list[Record], metric: str) -> float:
    """max / min of the values drawn (ours, the report's, a model's); 1 when none."""
    values = [v for r in records
              for v in (_y(r, metric) if r.shown else None, r.seed, r.model_fit)
              if v is not None and v > 0]
    return max(values) / min(values) if values else 1.0


def draw(experiment: Experiment, records: list[Record], path: Path, meta: dict) -> dict | None:
    """Write the plot; {"wrong": n, "skipped": n} as marked, or None without matplotlib."""
    plt = _pyplot()
    if plt is None:
        return None
    panels = _ordered(r.panel for r in records)
    series = _ordered(r.series for r in records)
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colors = {s: cycle[i % len(cycle)] for i, s in enumerate(series)}
    columns = 2 if len(panels) == 4 else min(len(panels), 3)
    rows_of_panels = -(-len(panels) // columns)
    width = max(6.5, 4.8 * columns)
    fig, grid = plt.subplots(rows_of_panels, columns, figsize=(width, 1.0 + 4.2 * rows_of_panels),
                             sharey=True, squeeze=False)
    axes = list(grid.flat)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    marks = _Marks()
    spec = experiment.plot
    for ax, panel in zip(axes, panels):
        rows = [r for r in records if r.panel == panel]
        (_draw_bars if spec.kind == "bars" else _draw_lines)(ax, experiment, rows, colors, marks)
        if panel:
            ax.set_title(panel, fontsize=10)
        ax.set_xlabel(spec.xlabel)
        span = _span(records, spec.y)
        if spec.logy and span >= 10:  # a narrower range reads better on a linear axis
            ax.set_yscale("log")
            plain = plt.FuncFormatter(lambda v, _: f"{v:g}")  # 200, not 2 x 10^2
            subs = (1, 2, 5) if span < 1e3 else (1,)  # labels at 1-2-5 while few decades
            ax.yaxis.set_major_locator(plt.LogLocator(base=10, subs=subs))
            ax.yaxis.set_major_formatter(plain)
            ax.yaxis.set_minor_formatter(plt.NullFormatter())
        ax.grid(True, which="major", alpha=0.3)
    if spec.kind == "bars":  # headroom: the legend goes where the tallest bars end
        low, high = axes[0].get_ylim()  # once: the panels share their y axis
        axes[0].set_ylim(low, high * 3 if axes[0].get_yscale() == "log" else high * 1.15)
    for row in grid:
        row[0].set_ylabel(_ylabel(experiment, records))
    handles, labels = {}, []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    right = 1.0
    if len(labels) > LEGEND_INSIDE:  # beside the axes: inside it would hide the curves
        side = 3.4  # inches for the legend: about LEGEND_CHARACTERS a line at 7 points
        entries = ([handles[label] for label in labels],
                   ["\n".join(textwrap.wrap(label, LEGEND_CHARACTERS)) for label in labels])
        fig.set_figwidth(width + side)
        right = width / (width + side)
        fig.legend(*entries, fontsize=7, loc="center left", bbox_to_anchor=(right, 0.5))
    else:
        axes[len(panels) - 1].legend([handles[label] for label in labels], labels,
                                     fontsize=7, loc="best", framealpha=0.8)
    device = meta.get("device") or meta.get("host", "")
    fig.suptitle(f"{experiment.name} — {device} ({meta.get('mode')})", fontsize=10)
    notes = marks.notes
    lines = []
    if len(notes) > 6:
        notes = notes[:6] + [f"... and {len(notes) - 6} more (see the table)"]
    for note in notes:
        # about 17 characters an inch at this font size; two lines a note at most
        lines += textwrap.wrap(note, int(width * 17), max_lines=2, placeholder=" [...]")
    if lines:
        fig.text(0.01, 0.005, "\n".join(lines), fontsize=6.5, color="0.3", va="bottom",
                 ha="left")
    # room at the foot for the notes, at the top for the title
    foot = 0.13 * len(lines) / fig.get_figheight()
    fig.tight_layout(rect=(0, foot, right, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return {"wrong": marks.wrong, "skipped": marks.skipped}
