"""A GS x BS sweep of the tall-skinny kernels (phvm, basicmm, tallskinny) beside what a
model predicts: every point verified against float64 and timed by events, so a model's
choice can be judged against the fastest configuration measured in the same run."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from ..errors import BuildError, ParameterError
from ..families import get_variant
from ..runtime.device import Device
from ..runtime.queue import Queue
from .measure import Workload, measure, times_in_turns

Size = tuple[int, int, int]
FINALISTS = 4  # the sweep's fastest points timed again beside the model's (rematch)


@dataclass(frozen=True)
class SweepPoint:
    gs: int
    bs: int
    kernel_ms: float | None  # median of the timed runs; None when not ok
    relerr: float | None
    status: str              # ok / wrong / failed / invalid
    message: str = ""        # why a point is invalid or failed


def grid(device: Device, extra_gs: Sequence[int] = (), simd: int = 32,
         max_gs: int = 8192, odd: bool = False) -> list[tuple[int, int]]:
    """(GS, BS): BS from the SIMD width doubling up to the device's group limit, GS
    powers of two up to ``max_gs`` (with ``odd``, each one's odd neighbour above as well:
    a CPU's grid stride aliases at powers of two, portgemm.auto.phvm) plus the ones a
    model asks for."""
    sizes = []
    size = max(1, simd)
    while size <= min(1024, device.max_work_group_size):
        sizes.append(size)
        size *= 2
    powers = {2 ** p for p in range(0, max_gs.bit_length())}
    groups = sorted(powers | {g + 1 for g in powers if odd and g > 1} | set(extra_gs))
    return [(gs, bs) for bs in sizes for gs in groups]


def sweep(variant: str, device: Device, size: Size, points: Sequence[tuple[int, int]], *,
          params: Mapping | None = None, dtype=np.float32, reps: int = 3, warmup: int = 1,
          seed: int = 0, progress=None) -> list[SweepPoint]:
    """Measure ``variant`` at every (GS, BS) of ``points`` (other parameters: ``params``)."""
    impl = get_variant(variant)
    work = Workload(size, np.dtype(dtype), seed)
    queue = Queue(device)
    found = []
    itemsize = np.dtype(dtype).itemsize
    for gs, bs in points:
        try:
            checked = impl.check({**dict(params or {}), "GS": gs, "BS": bs}, device, itemsize)
            impl.plan(*size, checked, itemsize)  # index limits are the plan's to check
        except ParameterError as exc:
            found.append(SweepPoint(gs, bs, None, None, "invalid", str(exc)))
            continue
        try:
            record = measure(queue, impl, checked, work, reps, warmup)
        except BuildError as exc:
            found.append(SweepPoint(gs, bs, None, None, "failed", str(exc).splitlines()[0]))
            continue
        relerr = None if record.relerr is None or math.isinf(record.relerr) else record.relerr
        found.append(SweepPoint(gs, bs, record.kernel_ms, relerr, record.status))
        if progress is not None:
            progress(found[-1])
    return found


def sweep_rounds(rounds: int, variant: str, device: Device, size: Size,
                 points: Sequence[tuple[int, int]], **options) -> list[SweepPoint]:
    """The sweep ``rounds`` times over, each round through every point in turn, so a slow
    spell of a shared host falls on every point alike rather than on the few measured
    during it; a point keeps the median of its rounds' times and its worst error."""
    runs = [sweep(variant, device, size, points, **options) for _ in range(max(1, rounds))]
    merged = []
    for seen in zip(*runs):
        failed = next((p for p in seen if p.status != "ok"), None)
        if failed is not None:
            merged.append(failed)
            continue
        errors = [p.relerr for p in seen if p.relerr is not None]
        merged.append(SweepPoint(seen[0].gs, seen[0].bs,
                                 float(np.median([p.kernel_ms for p in seen])),
                                 max(errors) if errors else None, "ok"))
    return merged


def fastest(points: Sequence[SweepPoint]) -> SweepPoint | None:
    ok = [p for p in points if p.status == "ok"]
    return min(ok, key=lambda p: p.kernel_ms) if ok else None


def at(points: Sequence[SweepPoint], gs: int, bs: int) -> SweepPoint | None:
    return next((p for p in points if (p.gs, p.bs) == (gs, bs)), None)


def rematch(variant: str, device: Device, size: Size, found: Sequence[SweepPoint],
            chosen: tuple[int, int], params_at: Callable[[int, int], Mapping], *,
            rounds: int, dtype=np.float32) -> list[tuple[int, int, float]]:
    """The sweep's FINALISTS fastest points and the model's ``chosen`` one timed again,
    in turns (:func:`portgemm.tune.measure.times_in_turns`): (GS, BS, median ms), fastest
    first. The sweep's own fastest time is the lowest of many noisy ones, biased low
    against any one point's; these times are not. ``params_at(gs, bs)``: the point's
    other parameters."""
    ok = sorted((p for p in found if p.status == "ok"), key=lambda p: p.kernel_ms)
    picked = [(p.gs, p.bs) for p in ok[:FINALISTS]]
    if chosen not in picked and any((p.gs, p.bs) == chosen for p in ok):
        picked.append(chosen)
    impl = get_variant(variant)
    itemsize = np.dtype(dtype).itemsize
    candidates = [impl.check({**params_at(gs, bs), "GS": gs, "BS": bs}, device, itemsize)
                  for gs, bs in picked]
    times = times_in_turns(Queue(device), impl, candidates,
                           Workload(size, np.dtype(dtype), 0), rounds, reps=3)
    medians = [(gs, bs, statistics.median(t) if t else math.inf)
               for (gs, bs), t in zip(picked, times)]
    return sorted(medians, key=lambda row: row[2])
