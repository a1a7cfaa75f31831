"""``python -m portgemm.tune --quick``: a tuned entry for an untuned device in under a
minute.

The family is the one ``auto`` would take on the device with no entry
(:func:`portgemm.auto.default.ordinary_candidates`: xgemm on GPUs, panel on CPU runtimes
that vectorise across work-items, vec on PoCL); its search space is a small neighbourhood of
that starting point (a few hundred points, which the model ranks), measured at one size,
1024^3 by default, the starting point first, until the budget runs out. The best
configuration becomes the device's entry for every size class (small, medium, large) at
the exact device level: ``auto`` then uses it at once.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import statistics
from typing import Mapping

import numpy as np

from ..auto.compiler import compiler_kind
from ..auto.default import ordinary_candidates
from ..auto.shapes import SIZE_CLASSES
from ..families import get_variant
from ..runtime.device import Device
from ..runtime.queue import Queue
from .measure import Workload, times_in_turns
from .results import TuneResult
from .tuner import tune

QUICK_SIZE = 1024
QUICK_BUDGET_S = 45.0
# neighbourhoods of the starting points, by compiler kind
QUICK_SPACES: dict[str, Mapping[str, list]] = {
    "gpu": {"MWG": [64, 128], "NWG": [64, 128], "KWG": [16, 32], "MDIMC": [8, 16],
            "NDIMC": [8, 16], "VW": [2, 4], "VWM": [2, 4], "VWN": [2, 4], "PAD": [1],
            "DOUBLE_BUFFER": [0, 1], "KUNROLL": [16], "WARPN": [8, 16], "KSPLIT": [1],
            "SWIZZLE": [1]},
    "work-item-vectorising": {"tile_y": [4, 6, 8], "tile_x": [2, 3, 4, 6],
                              "KC": [128, 256, 384, 512], "MB": [96, 192, 256, 384, 512],
                              "PACKED": [1]},
    "code-vectorising": {"tile_y": [4, 6, 8, 12], "tile_x": [16, 32, 48, 64], "vw": [8, 16],
                         "wg_y": [4, 8, 16, 32], "wg_x": [1, 2, 4]},
}


# the showdown: the search's fastest few, the starting point among them, timed again in
# turn; on a shared 2-core machine one pass of 2 runs a candidate picked a configuration
# 11% slower than the start it had measured first (PoCL, 1024)
SHOWDOWN_SIZE = 4
SHOWDOWN_ROUNDS = 3
# the start (the model's choice, made for every size) keeps its place unless a finalist's
# median is this much lower: on PoCL a 6 x 48 tile that won a showdown at 1024 by a few
# percent ran 74% of the start's 8 x 48 at 2048 (bench/results/2026-11-22-cpu-pocl-packed)
START_MARGIN = 0.05


def quick_tune(device: Device, *, size: int = QUICK_SIZE, budget_s: float = QUICK_BUDGET_S,
               dtype="float32", progress: bool = True, cache_file=None) -> TuneResult:
    """Tune the device's own family around its starting point (see the module)."""
    variant, start, _ = ordinary_candidates(device, np.dtype(dtype).itemsize)[0]
    # the start's own values for what the neighbourhood leaves out (panel's group width)
    space = {**{name: [value] for name, value in start.items()},
             **QUICK_SPACES[compiler_kind(device)]}
    result = tune(get_variant(variant), device, [size],
                  space=space, strategy="model", fraction=1.0,
                  budget_s=budget_s, reps=2, warmup=1, dtype=dtype, progress=progress,
                  cache_file=cache_file, first=[start])
    return showdown(result, start)


def showdown(result: TuneResult, start: Mapping | None = None) -> TuneResult:
    """The result with its best chosen again: the SHOWDOWN_SIZE fastest candidates (and
    ``start``, when it ran), measured SHOWDOWN_ROUNDS times in turn on one queue (the
    order rotating), the lowest median winning, or the start unless that median is
    START_MARGIN below its own. Its record then holds the showdown's times, and the
    result's ``showdown`` every finalist's median (the table ranks by the search's)."""
    ok = sorted(result.ok, key=lambda c: c.kernel_ms)
    finalists = ok[:SHOWDOWN_SIZE]
    variant = get_variant(result.variant)
    # candidates' params are resolved; a start may leave defaults out (PoCL's vec: KSPLIT)
    begun = None if start is None else variant.resolve(start)
    first = next((c for c in ok if begun is not None and c.params == begun), None)
    if first is not None and first not in finalists:
        finalists.append(first)
    if len(finalists) < 2 or len(result.sizes) != 1:
        return result
    queue = Queue(result.device)
    work = Workload(result.sizes[0], np.dtype(result.dtype), seed=0)
    times = times_in_turns(queue, variant, [c.params for c in finalists], work,
                           SHOWDOWN_ROUNDS)
    medians = [statistics.median(t) if t else math.inf for t in times]
    index = min(range(len(finalists)), key=medians.__getitem__)
    if first is not None:
        kept = finalists.index(first)
        if medians[index] > medians[kept] * (1 - START_MARGIN):
            index = kept
    if not math.isfinite(medians[index]):
        return result
    winner = finalists[index]
    record = dataclasses.replace(winner.records[0], kernel_ms=medians[index],
                                 gflops=work.flops / (medians[index] * 1e6),
                                 times_ms=times[index], cached=False)
    best = dataclasses.replace(winner, records=[record])
    return dataclasses.replace(result, best=best,
                               strategy=f"{result.strategy}, showdown of {len(finalists)}"
                               + (f" (the start kept unless {START_MARGIN:.0%} slower)"
                                  if first is not None else ""),
                               showdown=[(dict(c.params), ms)
                                         for c, ms in zip(finalists, medians)])


def quick_entries(result: TuneResult) -> list[dict]:
    """The best candidate as the entry of every size class (one size measured)."""
    if result.best is None:
        return []
    record = result.best.records[0]
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return [{"variant": result.variant, "shape_class": name, "dtype": result.dtype,
             "params": dict(result.best.params), "kernel_ms": round(record.kernel_ms, 6),
             "gflops": round(result.best.gflops, 3), "sizes": [list(record.size)],
             "strategy": f"quick ({result.strategy}, {result.elapsed_s:.0f} s)",
             "evaluated": len(result.ok), "tuned_at": stamp} for name in SIZE_CLASSES]
