"""Running one point: where it runs, a warm-up, probes for the budget rule, and the timed,
checked measurement.

The first call of a measured point runs with C poisoned (NaN) and is checked against
float64; further calls, as many as fit the mode's time for repetitions, give the
medians. A point too long for any repetition is timed on its checked call alone (its
kernel was built by the warm-up, so no build is in that time). This is why the bench's
``bench_case`` (a fixed number of repetitions after an untimed first call) is not used:
at the reports' largest sizes it would double the cost of each point.

A place registered as self-contained (an MPI job: other processes that warm up, repeat,
take medians and check C against float64 themselves) is called once per point, with
no operands, warm-up or probes from here (:func:`measure_job`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..api import gemm
from ..bench.runner import times_only
from ..bench.targets import Target, parse_targets
from ..errors import BackendUnavailableError, BuildError, ParameterError
from ..verify import relative_error, tolerance
from .budget import PROBE_CAP_S, PROBE_START, Budget, config_key
from .record import FAILED, SKIPPED, WRONG, Record
from .spec import Mode, Point
from .vendor import Vendor, vendor_for, wall

WARM_SIZE = 64        # the warm-up's largest dimension


@dataclass
class Places:
    """The targets a run's points go to; each made on first use (the host backend loads
    numba, the device selector enumerates OpenCL platforms, cuBLAS imports torch)."""

    device_spec: str | None = None
    _device: Target | None = None
    _host: Target | None = None
    _vendor: Vendor | None = None
    # what a registered place keeps for the run (an MPI job's records, shared by the
    # points it measured at once)
    store: dict = field(default_factory=dict)

    @property
    def device(self) -> Target:
        if self._device is None:
            self._device = parse_targets(self.device_spec)[0]
        return self._device

    @property
    def host(self) -> Target:
        if self._host is None:
            self._host = parse_targets("host")[0]
        return self._host

    @property
    def vendor(self) -> Vendor:
        if self._vendor is None:
            self._vendor = vendor_for(self.device.device)
        return self._vendor

    def target(self, point: Point) -> Target:
        return self.host if point.on == "host" else self.device

    def describe(self, point: Point) -> tuple[str, str]:
        """(device in words, backend) for the record."""
        if point.on == "vendor":
            return self.device.device.name, self.vendor.name
        if point.on not in ("device", "host"):  # a registered place names itself and
            return self.device_spec or "", point.on  # its devices (Timing.device)
        target = self.target(point)
        return getattr(target.device, "name", str(target.device)), target.backend


@dataclass
class Timing:
    c: Any
    kernel_ms: float
    wall_ms: float
    params: dict | None = None  # every parameter the code ran with, defaults included
    # a self-contained place's own float64 check and repetitions, where it ran (in words)
    # and what else it measured
    relerr: float | None = None
    tolerance: float | None = None
    reps: int = 0
    device: str = ""
    extra: dict = field(default_factory=dict)


def _run_gemm(point: Point, places: Places, a: np.ndarray, b: np.ndarray,
              poison: float | None) -> Timing:
    target = places.target(point)
    r = gemm(a, b, device=target.device, variant=point.variant, params=dict(point.params),
             backend=target.backend, poison=poison)
    return Timing(r.c, r.kernel_ms, r.wall_ms, dict(r.params))


def _run_vendor(point: Point, places: Places, a: np.ndarray, b: np.ndarray,
                poison: float | None) -> Timing:
    c, ms = wall(lambda: places.vendor.product(a, b))
    return Timing(c, ms, ms)


# Point.on -> how a point placed there runs once: (point, places, a, b, poison) -> Timing.
# A seed module whose points run elsewhere (under mpiexec, say, for portgemm.distributed)
# adds its place with register_place; nothing else here changes.
RUNNERS = {"device": _run_gemm, "host": _run_gemm, "vendor": _run_vendor}
SELF_CONTAINED: set[str] = set()
# a self-contained place's (point, places) -> how many calls of the point's size its
# measurement still costs (a job: every partition's warm-up and repetitions; 0 once run)
JOB_CALLS: dict[str, Any] = {}


def register_place(name: str, run, *, self_contained: bool = False, calls=None) -> None:
    """Add a place; ``self_contained``: one call of ``run`` is a whole measurement
    (see the module's docstring), given ``a = b = None``; ``calls`` (point, places) ->
    the calls of the point's size that measurement still costs, for the budget rule
    (default 1)."""
    RUNNERS[name] = run
    (SELF_CONTAINED.add if self_contained else SELF_CONTAINED.discard)(name)
    if calls is None:
        JOB_CALLS.pop(name, None)
    else:
        JOB_CALLS[name] = calls


def self_contained(point: Point) -> bool:
    return point.on in SELF_CONTAINED


def calls_left(point: Point, places: Places) -> int:
    """The calls of the point's size its measurement costs (budget rule 3)."""
    count = JOB_CALLS.get(point.on)
    return 1 if count is None else count(point, places)


def call(point: Point, places: Places, a: np.ndarray, b: np.ndarray,
         poison: float | None = None) -> Timing:
    """One run of the point's code on (a, b)."""
    if point.on not in RUNNERS:
        raise ParameterError(f"no place {point.on!r} to run a point; places: {', '.join(RUNNERS)}")
    return RUNNERS[point.on](point, places, a, b, poison)


def _random_operands(size: tuple[int, int, int],
                     dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    m, n, k = size
    rng = np.random.default_rng(0)
    return rng.random((m, k), dtype=dtype), rng.random((k, n), dtype=dtype)


def _scaled(size: tuple[int, int, int], largest: int) -> tuple[int, int, int]:
    factor = largest / max(size)
    return tuple(max(1, round(d * factor)) for d in size)


def warm_up(point: Point, places: Places, dtype: str = "float32") -> None:
    """Build (OpenCL) or compile (numba) the point's code on a small problem in the
    experiment's dtype (numba compiles each dtype apart), so that no timed call pays for
    it. Errors are left for the measurement to report."""
    try:
        size = _scaled(point.size, min(WARM_SIZE, max(point.size)))
        call(point, places, *_random_operands(size, dtype))
    except Exception:  # the measured call meets the same error and records it
        pass


def probe(point: Point, places: Places, budget: Budget, dtype: str = "float32") -> None:
    """Time the point's configuration at growing sizes (256, 512, ... at most a quarter
    of the point's largest dimension) in the experiment's dtype, stopping before a probe
    predicted to take over PROBE_CAP_S; each time is taught to ``budget``."""
    key, largest = config_key(point), max(point.size)
    side = PROBE_START
    while side * 4 <= largest:
        size = _scaled(point.size, side)
        known = budget.predict(key, 2.0 * math.prod(size))
        if known is not None and known[0] > PROBE_CAP_S:
            return
        try:
            seconds = call(point, places, *_random_operands(size, dtype)).wall_ms / 1e3
        except Exception:  # reported by the measurement
            return
        budget.learn(key, size, seconds)
        side *= 2


def measure(point: Point, record: Record, places: Places, mode: Mode, a: np.ndarray,
            b: np.ndarray, reference64: np.ndarray) -> Record:
    """Time and check one point into ``record``; failures become its status."""
    try:
        first = call(point, places, a, b, poison=np.nan)
    except Exception as exc:
        return _failure(record, exc)
    if first.params is not None:
        record.params = first.params
    _judge(record, relative_error(np.asarray(first.c), reference64),
           float(tolerance(a.dtype, a.shape[1])))

    runs = [first]
    reps = 0
    if mode.timed_s > 0 and first.wall_ms > 0:
        reps = min(mode.max_reps, int(mode.timed_s / (first.wall_ms / 1e3)))
    if reps:
        runs = [times_only(call(point, places, a, b)) for _ in range(reps)]
    record.reps = reps
    record.kernel_ms = statistics.median(r.kernel_ms for r in runs)
    record.wall_ms = statistics.median(r.wall_ms for r in runs)
    if point.on == "vendor":
        record.timed = places.vendor.timed
        if places.vendor.timer is not None:  # cuBLAS: its own event timing
            record.kernel_ms = places.vendor.timer(a, b, reps)
    return _finish(record, point)


def measure_job(point: Point, record: Record, places: Places) -> Record:
    """A self-contained place's point: one call, which timed and checked it already."""
    try:
        done = call(point, places, None, None)
    except Exception as exc:
        return _failure(record, exc)
    if done.params is not None:
        record.params = done.params
    _judge(record, done.relerr, done.tolerance)
    record.reps, record.kernel_ms, record.wall_ms = done.reps, done.kernel_ms, done.wall_ms
    record.extra.update(done.extra)
    record.device = done.device or record.device
    return _finish(record, point)


def _failure(record: Record, exc: Exception) -> Record:
    """What an exception of a point's call makes of it: skipped where portgemm cannot
    run it here (a parameter or dtype it refuses, a backend not installed), else failed
    (a build error, a driver error such as out of resources: results too)."""
    if isinstance(exc, BuildError):
        return record.mark(FAILED, f"build failed: {exc.first_error or exc}")
    first_line = str(exc).splitlines()[0] if str(exc) else ""
    if isinstance(exc, (ParameterError, TypeError, BackendUnavailableError)):
        return record.mark(SKIPPED, first_line)
    return record.mark(FAILED, f"{type(exc).__name__}: {first_line}")


def _judge(record: Record, relerr: float | None, limit: float | None) -> None:
    record.relerr, record.tolerance = relerr, limit
    if relerr is None or limit is None:  # a time without a check is no result
        record.mark(FAILED, "not checked: no relative error came back")
    elif not relerr <= limit:  # NaN (an unwritten element) fails too
        record.mark(WRONG, f"relative error {relerr:.1e} > tolerance {limit:.1e}")


def _finish(record: Record, point: Point) -> Record:
    record.time_ms = record.wall_ms if record.timed == "wall" else record.kernel_ms
    record.gflops = point.flops / (record.time_ms * 1e6) if record.time_ms else None
    return record
