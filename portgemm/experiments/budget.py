"""When a point is not run: the one rule (:data:`RULE`, printed in every NAME.md), its
predictions and its verdicts."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from .spec import MODES, Mode, Point

SMALL_FLOPS = 2e9       # never predicted: at 0.5 GFLOPS such a point takes 4 s
PROBE_START = 256       # the first probe's largest dimension
PROBE_CAP_S = 2.0       # no probe predicted to take longer than this
HOST_MEMORY_SHARE = 0.8

_FULL, _QUICK = MODES["full"], MODES["quick"]
RULE = f"""\
A point is skipped, and kept in the JSON, the table and the plot with the reason, when

1. portgemm has no counterpart for it (e.g. C's `restrict`);
2. it does not fit: its operands (in the experiment's dtype) are larger than the
   device's memory, or its float64 check (A, B and C in float64) would take over
   {HOST_MEMORY_SHARE:.0%} of the host's memory;
3. its predicted time exceeds the point budget (full run:
   {_FULL.point_budget_s:g} s, `--quick`: {_QUICK.point_budget_s:g} s; `--budget SECONDS` sets
   another). The prediction scales the time of the same configuration (place, variant
   and parameters) at a smaller size by the ratio of flops: the experiment's own earlier
   point when there is one, else probes of that configuration at {PROBE_START},
   {2 * PROBE_START}, ... (at most a quarter of the point's size, none predicted over
   {PROBE_CAP_S:g} s). A point of at most {SMALL_FLOPS / 1e9:g} GFLOP is not predicted: even
   at 0.5 GFLOPS it takes {SMALL_FLOPS / 0.5e9:g} s. The time predicted is one call's,
   except for a point measured by a job (an MPI job, which warms up and repeats every
   partition in one run): there it is the job's calls, predicted from the point's own
   earlier time, and the job's other points cost nothing more;
4. the experiment's time limit is spent (`--quick`: {_QUICK.total_budget_s:g} s, which with
   rule 3 keeps a quick experiment within about two minutes; a full run has none unless
   `--time-limit SECONDS` sets one).

Time ∝ flops is optimistic where a larger problem falls out of the caches, so a point can
run somewhat over its budget: the rule is for "unreasonably long", not a precise cap.
"""


def config_key(point: Point) -> Hashable:
    """What a point's time is predicted from: the same code with the same parameters."""
    return (point.on, point.variant, tuple(sorted(point.params.items())))


def _host_memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_problem(point: Point, device: Any, itemsize: int = 4) -> str:
    """Why the point's operands do not fit ('' when they do)."""
    m, n, k = point.size
    elements = m * k + k * n + m * n
    host = _host_memory_bytes()
    if host and elements * (8 + 2 * itemsize) > HOST_MEMORY_SHARE * host:
        return (f"the float64 check needs {elements * (8 + 2 * itemsize) / 2**30:.1f} GiB, "
                f"over {HOST_MEMORY_SHARE:.0%} of the host's {host / 2**30:.0f} GiB")
    total = getattr(device, "global_mem_size", None)
    largest = getattr(device, "max_mem_alloc_size", None)
    if point.on == "device" and total and elements * itemsize > total:
        return (f"A, B and C need {elements * itemsize / 2**30:.1f} GiB; the device has "
                f"{total / 2**30:.1f} GiB")
    if point.on == "device" and largest and max(m * k, k * n, m * n) * itemsize > largest:
        return (f"one operand needs {max(m * k, k * n, m * n) * itemsize / 2**30:.1f} GiB; "
                f"the device allocates at most {largest / 2**30:.1f} GiB at once")
    return ""


@dataclass
class Budget:
    """Predictions from what was measured, and the verdicts of rules 3 and 4."""

    mode: Mode
    point_s: float
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    seen: dict[Hashable, list[tuple[float, float, tuple]]] = field(default_factory=dict)

    def __post_init__(self):
        self.started = self.clock()

    def learn(self, key: Hashable, size: tuple[int, int, int], seconds: float) -> None:
        m, n, k = size
        self.seen.setdefault(key, []).append((2.0 * m * n * k, seconds, size))

    def predict(self, key: Hashable, flops: float,
                calls: int = 1) -> tuple[float, str] | None:
        """(seconds, basis) of ``calls`` calls of ``flops`` each, from the largest
        measurement of ``key`` not above ``flops``."""
        below = [s for s in self.seen.get(key, ()) if s[0] <= flops]
        if not below:
            return None
        done_flops, seconds, size = max(below)
        basis = f"{seconds:.3g} s at {'x'.join(map(str, size))}"
        if calls != 1:
            basis += f", {calls} calls in its job"
        return seconds * flops / done_flops * calls, basis

    def over_point(self, predicted: tuple[float, str] | None) -> str:
        if predicted is None or predicted[0] <= self.point_s:
            return ""
        return (f"predicted {predicted[0]:.0f} s (from {predicted[1]}) > the "
                f"{self.point_s:g} s budget per point")

    def over_total(self) -> str:
        total = self.mode.total_budget_s
        if total is None or self.clock() - self.started <= total:
            return ""
        return f"the experiment's {total:g} s time limit was spent"
