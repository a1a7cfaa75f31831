"""Running one point: where it runs, a warm-up, probes for the budget rule, and the timed,
checked measurement.

The first call of a measured point runs with C poisoned (NaN) and is checked against
float64; further calls, as many as fit the mode's time for repetitions, give the
medians. A point too long for any repetition is timed on its checked call alone (its
kernel was built by the warm-up, so no build is in that time). This is why the bench's
``bench_case`` (a fixed number of repetitions after an untimed first call) is not used:
at the reports' largest sizes it would double the cost of each point.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..api import gemm
from ..bench.targets import Target, parse_targets
from ..errors import BuildError, ParameterError
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
        if point.on not in ("device", "host"):  # a registered place names itself
            return self.device.device.name, point.on
        target = self.target(point)
        return getattr(target.device, "name", str(target.device)), target.backend


@dataclass
class Timing:
    c: Any
    kernel_ms: float
    wall_ms: float
    params: dict | None = None  # every parameter the code ran with, defaults included


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


def register_place(name: str, run) -> None:
    RUNNERS[name] = run


def call(point: Point, places: Places, a: np.ndarray, b: np.ndarray,
         poison: float | None = None) -> Timing:
    """One run of the point's code on (a, b)."""
    if point.on not in RUNNERS:
        raise ParameterError(f"no place {point.on!r} to run a point; places: {', '.join(RUNNERS)}")
    return RUNNERS[point.on](point, places, a, b, poison)


def _random_operands(size: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    m, n, k = size
    rng = np.random.default_rng(0)
    return rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32)


def _scaled(size: tuple[int, int, int], largest: int) -> tuple[int, int, int]:
    factor = largest / max(size)
    return tuple(max(1, round(d * factor)) for d in size)


def warm_up(point: Point, places: Places) -> None:
    """Build (OpenCL) or compile (numba) the point's code on a small problem, so that no
    timed call pays for it. Errors are left for the measurement to report."""
    try:
        call(point, places, *_random_operands(_scaled(point.size, min(WARM_SIZE, max(point.size)))))
    except Exception:  # the measured call meets the same error and records it
        pass


def probe(point: Point, places: Places, budget: Budget) -> None:
    """Time the point's configuration at growing sizes (256, 512, ... at most a quarter
    of the point's largest dimension), stopping before a probe predicted to take over
    PROBE_CAP_S; each time is taught to ``budget``."""
    key, largest = config_key(point), max(point.size)
    side = PROBE_START
    while side * 4 <= largest:
        size = _scaled(point.size, side)
        known = budget.predict(key, 2.0 * math.prod(size))
        if known is not None and known[0] > PROBE_CAP_S:
            return
        try:
            seconds = call(point, places, *_random_operands(size)).wall_ms / 1e3
        except Exception:  # reported by the measurement
            return
        budget.learn(key, size, seconds)
        side *= 2


def measure(point: Point, record: Record, places: Places, mode: Mode, a: np.ndarray,
            b: np.ndarray, reference64: np.ndarray) -> Record:
    """Time and check one point into ``record``; failures become its status."""
    try:
        first = call(point, places, a, b, poison=np.nan)
    except BuildError as exc:
        return record.mark(FAILED, f"build failed: {exc.first_error or exc}")
    except (ParameterError, TypeError) as exc:
        return record.mark(SKIPPED, str(exc).splitlines()[0])
    except Exception as exc:  # a driver error (out of resources, ...) is a result too
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        return record.mark(FAILED, f"{type(exc).__name__}: {first_line}")
    if first.params is not None:
        record.params = first.params
    record.relerr = relative_error(np.asarray(first.c), reference64)
    record.tolerance = float(tolerance(a.dtype, a.shape[1]))
    if not record.relerr <= record.tolerance:  # NaN (an unwritten element) fails too
        record.mark(WRONG, f"relative error {record.relerr:.1e} > tolerance "
                           f"{record.tolerance:.1e}")

    runs = [first]
    reps = 0
    if mode.timed_s > 0 and first.wall_ms > 0:
        reps = min(mode.max_reps, int(mode.timed_s / (first.wall_ms / 1e3)))
    if reps:
        runs = [call(point, places, a, b) for _ in range(reps)]
    record.reps = reps
    record.kernel_ms = statistics.median(r.kernel_ms for r in runs)
    record.wall_ms = statistics.median(r.wall_ms for r in runs)
    if point.on == "vendor":
        record.timed = places.vendor.timed
        if places.vendor.timer is not None:  # cuBLAS: its own event timing
            record.kernel_ms = places.vendor.timer(a, b, reps)
    record.time_ms = record.wall_ms if record.timed == "wall" else record.kernel_ms
    record.gflops = point.flops / (record.time_ms * 1e6) if record.time_ms else None
    return record
