"""One record per point (NAME.json): where it ran, its parameters, times, GFLOPS, the
float64 check, and the report's number beside it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .spec import Experiment, Point

# status values; a point is never dropped, whatever happened to it
OK, WRONG, SKIPPED, FAILED = "ok", "WRONG", "skipped", "failed"


@dataclass
class Record:
    experiment: str
    series: str
    x: Any
    panel: str
    place: str                 # Point.on: device, host or vendor
    device: str                # what it ran on, in words
    backend: str               # opencl, host, dpex; numpy or cublas for the vendor
    variant: str
    params: dict[str, Any]
    m: int
    n: int
    k: int
    dtype: str
    inputs: str
    timed: str                 # which time is time_ms: kernel or wall
    time_ms: float | None = None   # what the experiment reports (median)
    kernel_ms: float | None = None  # OpenCL event time (host code: the call's time)
    wall_ms: float | None = None    # the whole call, transfers included
    gflops: float | None = None     # from time_ms
    reps: int = 0              # timed calls behind the medians; 0: the checked call alone
    relerr: float | None = None    # ||C - C64|| / ||C64||
    tolerance: float | None = None
    status: str = OK
    reason: str = ""           # why skipped / failed / wrong
    predicted_s: float | None = None  # the budget rule's prediction, when it made one
    pct_of_vendor: float | None = None
    vendor: str = ""
    seed: float | None = None  # the report's number for this point
    seed_unit: str = "ms"
    seed_note: str = ""
    model: float | None = None     # a cost model's prediction (Point.model)
    model_fit: float | None = None  # the same, fitted onto the measured curve (fit.py)
    highlight: str = ""            # Point.highlight
    # what a place measured besides the times (an MPI job's comm / compute split, ...)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_point(cls, experiment: Experiment, point: Point, *, device: str, backend: str,
                  dtype: str = "float32") -> "Record":
        m, n, k = point.size
        return cls(experiment.name, point.series, point.x, point.panel, point.on, device,
                   backend, point.variant, dict(point.params), m, n, k, dtype,
                   experiment.inputs, "wall" if point.on == "host" else experiment.timed,
                   seed=point.seed, seed_unit=experiment.seed_unit, seed_note=point.seed_note,
                   model=point.model, highlight=point.highlight, extra=dict(point.extra))

    def mark(self, status: str, reason: str) -> "Record":
        self.status, self.reason = status, reason
        return self

    @property
    def shown(self) -> bool:
        """Has a time to draw (a wrong point has one and is drawn, marked)."""
        return self.time_ms is not None and self.status in (OK, WRONG)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _plain(value: Any) -> Any:
    """numpy scalars as Python numbers; anything else JSON cannot hold, as text."""
    return value.item() if hasattr(value, "item") else str(value)


def write_json(path: Path, meta: dict[str, Any], records: list[Record]) -> None:
    with open(path, "w") as f:
        json.dump({**meta, "records": [r.as_dict() for r in records]}, f, indent=1,
                  default=_plain)
        f.write("\n")


def read_json(path: Path, experiment: str | None = None) -> tuple[dict[str, Any], list[Record]]:
    """(meta, records) of a NAME.json; ValueError, saying why, for a file that is not
    one, or (``experiment`` given) one another experiment wrote (redraw wrote its rows
    under this one's title)."""
    try:
        data = json.loads(Path(path).read_text())
        records = [Record(**r) for r in data.pop("records")]
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ValueError(f"{path} is not an experiment's record ({type(exc).__name__}: "
                         f"{exc})") from None
    if experiment is not None and data.get("experiment", experiment) != experiment:
        raise ValueError(f"{path} records {data['experiment']}, not {experiment}")
    return data, records
