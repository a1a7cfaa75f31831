"""What an experiment is: the points it measures, how it is timed and drawn, and what the
seed report said. Data only; running is :mod:`.runner`'s job."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

# Where a point runs (Point.on). "device": the experiment's --device (OpenCL by default);
# "host": the host backend (serial and threaded CPU code), whatever --device says;
# "vendor": the vendor library of the device (cuBLAS on an NVIDIA GPU, numpy's BLAS
# otherwise). measure.register_place adds others ("mpi": a job under mpiexec, seed002_mpi).
PLACES = ("device", "host", "vendor")

# What a point's reported time is: "kernel", the OpenCL event time (the reports' nvprof
# and CUDA-event numbers), or "wall", the whole call with its transfers (the reports that
# timed with clock() or around the copies). Host code has one time, the call's.
TIMINGS = ("kernel", "wall")


@dataclass(frozen=True)
class Mode:
    """How big and how long: the report's sizes ("full"), a short run ("quick", at most two
    minutes an experiment on a 2-core CPU) or the tests' tiny one."""

    name: str
    point_budget_s: float        # a point predicted to need longer is skipped (budget.py)
    total_budget_s: float | None  # after this much, the rest of the experiment is skipped
    timed_s: float               # aim of the timed repetitions' total per point
    max_reps: int


MODES = {
    "full": Mode("full", point_budget_s=60.0, total_budget_s=None, timed_s=2.0, max_reps=10),
    "quick": Mode("quick", point_budget_s=10.0, total_budget_s=110.0, timed_s=0.5, max_reps=5),
    # for the tests only (python -m ... run --mode tiny): seconds for the whole registry
    "tiny": Mode("tiny", point_budget_s=5.0, total_budget_s=30.0, timed_s=0.0, max_reps=1),
}


def pick(mode: Mode, *, full: Any, quick: Any, tiny: Any) -> Any:
    """The value of a size or a sweep for this mode."""
    return {"full": full, "quick": quick, "tiny": tiny}[mode.name]


@dataclass(frozen=True)
class Point:
    """One measurement of an experiment.

    ``series`` is the legend entry (a kernel, an algorithm), ``x`` the swept value (a size,
    a block size, a rung's name), ``panel`` a sub-plot when the plot has several.
    ``seed`` is the report's own number for this point in the experiment's ``seed_unit``
    (None where the report gives none); ``seed_note`` says more (e.g. its other columns).
    ``unavailable`` names why portgemm has no counterpart: the point is shown, not run.
    ``model`` is a cost model's predicted time for this point in ms (the table shows it
    as it is; the plot draws it fitted onto the measured curve, see fit.py);
    ``highlight`` labels a point the plot and the table single out (the model's choice);
    ``extra`` is what the experiment knows of it besides (the model's constants), kept in
    its record.
    """

    series: str
    x: Any
    variant: str
    size: tuple[int, int, int]
    params: Mapping[str, Any] = field(default_factory=dict)
    on: str = "device"
    panel: str = ""
    seed: float | None = None
    seed_note: str = ""
    unavailable: str = ""
    model: float | None = None
    highlight: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def flops(self) -> float:
        m, n, k = self.size
        return 2.0 * m * n * k


@dataclass(frozen=True)
class PlotSpec:
    """The figure a reader of the report expects.

    kind "line": one curve per series over x; "bars": groups of bars, one group per x (in
    the points' order), one bar per series. ``y`` is "time_ms" or "pct_of_vendor".
    ``logx`` puts x on a base-2 log axis (sizes and block sizes that double).
    ``reference_lines`` are series drawn as horizontal lines (one value each), e.g. the
    serial CPU time a device sweep is compared with. ``extra_lines``: (key of
    ``Record.extra``, legend label) drawn dash-dotted in each series' colour, for a part of
    the time a place measures (an MPI job's communication).
    """

    kind: str = "line"
    xlabel: str = ""
    y: str = "time_ms"
    logx: bool = False
    logy: bool = True
    reference_lines: tuple[str, ...] = ()
    extra_lines: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Experiment:
    """One seed experiment. ``points(mode)`` lists what to measure, in order (smaller
    sizes first, so a configuration's later points are predicted from its earlier ones).

    ``reading`` says how the report's text was read where it is ambiguous, and what
    differs from what the report ran; ``report_says`` gives its result in words where it
    gives no numbers (figures only). Both go into NAME.md.
    """

    name: str
    summary: str                 # what it sweeps, one line (``list``)
    source: str                  # where in the report: "report 000, section 1.3.2"
    timed: str                   # one of TIMINGS
    points: Callable[[Mode], list[Point]]
    plot: PlotSpec
    reading: str
    report_says: str = ""
    seed_unit: str = "ms"        # the unit of Point.seed: "ms" or "%" (of the vendor)
    inputs: str = "uniform"      # operand generator, see inputs.py
    dtype: str = "float32"       # of the operands and C: the report's own (002: double)
    relative_to_vendor: bool = False  # add "% of vendor" from a vendor point of each size
    per_device: bool = False
    extra_columns: tuple[tuple[str, str, str], ...] = ()
    findings: Callable[[list], list[str]] | None = None
    time_words: str = ""

    def __post_init__(self):
        if self.timed not in TIMINGS:
            raise ValueError(f"{self.name}: timed must be one of {TIMINGS}")

    @property
    def seed(self) -> str:
        """The seed report's number, the name's prefix ("000")."""
        return self.name.split("-", 1)[0]

    def plan(self, mode: Mode, device: Any = None) -> list[Point]:
        """The points to measure (on ``device`` for a per-device experiment)."""
        return self.points(mode, device) if self.per_device else self.points(mode)

    def uses_device(self, mode: Mode) -> bool:
        """Whether it runs kernels on the --device (what the GPU script runs)."""
        return any(p.on == "device" for p in self.plan(mode))
