"""A cost model's predictions drawn on the measured curve.

A model's time is often in its own unit (the paper's PHVM model counts clock cycles) or
off by a constant factor (it leaves the caches out); what it is asked for is the shape of
the curve and where its minimum lies. So, as the paper drew its model on a second axis,
each panel's predictions are multiplied by one factor: the geometric mean of
measured / predicted over the panel's correct points (the least-squares fit on a log
axis). The factor changes no ratio between two predictions, so the model's optimum and
its knees stay where the model put them.
"""

from __future__ import annotations

import math

from .record import OK, Record


def panel_factor(records: list[Record]) -> float | None:
    """measured / predicted, fitted over ``records`` (one panel); None without a pair."""
    ratios = [r.time_ms / r.model for r in records
              if r.status == OK and r.time_ms and r.model and r.model > 0]
    if not ratios:
        return None
    return math.exp(sum(math.log(q) for q in ratios) / len(ratios))


def fit_model(records: list[Record]) -> None:
    """Set ``model_fit`` of every record with a prediction, panel by panel."""
    for panel in dict.fromkeys(r.panel for r in records):
        rows = [r for r in records if r.panel == panel and r.model is not None]
        factor = panel_factor(rows)
        for r in rows:
            r.model_fit = r.model * factor if factor is not None else None
