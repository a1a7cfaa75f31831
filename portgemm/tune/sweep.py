"""A GS x BS sweep of the tall-skinny kernels (phvm, basicmm, tallskinny) beside what a
model predicts: every point verified against float64 and timed by events, so a model's
choice can be judged against the fastest configuration measured in the same run."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import BuildError, ParameterError
from ..families import get_variant
from ..runtime.device import Device
from ..runtime.queue import Queue
from .measure import Workload, measure

Size = tuple[int, int, int]


@dataclass(frozen=True)
class SweepPoint:
    gs: int
    bs: int
    kernel_ms: float | None  # median of the timed runs; None when not ok
    relerr: float | None
    status: str              # ok / wrong / failed / invalid


def grid(device: Device, extra_gs: Sequence[int] = (), simd: int = 32,
         max_gs: int = 8192) -> list[tuple[int, int]]:
    """(GS, BS): BS from the SIMD width doubling up to the device's group limit, GS
    powers of two up to ``max_gs`` plus the ones a model asks for."""
    sizes = []
    size = max(1, simd)
    while size <= min(1024, device.max_work_group_size):
        sizes.append(size)
        size *= 2
    groups = sorted({2 ** p for p in range(0, max_gs.bit_length())} | set(extra_gs))
    return [(gs, bs) for bs in sizes for gs in groups]


def sweep(variant: str, device: Device, size: Size, points: Sequence[tuple[int, int]], *,
          params: Mapping | None = None, dtype=np.float32, reps: int = 3, warmup: int = 1,
          seed: int = 0, progress=None) -> list[SweepPoint]:
    """Measure ``variant`` at every (GS, BS) of ``points`` (other parameters: ``params``)."""
    impl = get_variant(variant)
    work = Workload(size, np.dtype(dtype), seed)
    queue = Queue(device)
    found = []
    for gs, bs in points:
        try:
            checked = impl.check({**dict(params or {}), "GS": gs, "BS": bs}, device,
                                 np.dtype(dtype).itemsize)
            impl.plan(*size, checked)  # index limits are the plan's to check
        except ParameterError:
            found.append(SweepPoint(gs, bs, None, None, "invalid"))
            continue
        try:
            record = measure(queue, impl, checked, work, reps, warmup)
        except BuildError:
            found.append(SweepPoint(gs, bs, None, None, "failed"))
            continue
        relerr = None if record.relerr is None or math.isinf(record.relerr) else record.relerr
        found.append(SweepPoint(gs, bs, record.kernel_ms, relerr, record.status))
        if progress is not None:
            progress(found[-1])
    return found


def fastest(points: Sequence[SweepPoint]) -> SweepPoint | None:
    ok = [p for p in points if p.status == "ok"]
    return min(ok, key=lambda p: p.kernel_ms) if ok else None


def at(points: Sequence[SweepPoint], gs: int, bs: int) -> SweepPoint | None:
    return next((p for p in points if (p.gs, p.bs) == (gs, bs)), None)
