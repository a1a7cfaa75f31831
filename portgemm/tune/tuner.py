"""The autotuner: measure a variant's parameter space on a device, verified, and keep the
fastest correct candidate.

    from portgemm.tune import tune
    result = tune("tiled", "intel", [512], strategy="model", budget_s=60)
    result.best.params, result.best.kernel_ms
    print(result.table())

The pieces: :mod:`.space` enumerates the points, :mod:`.strategies` orders them,
:mod:`.measure` runs each candidate through the OpenCL backend on a poisoned C and checks
it against float64, :mod:`.cache` remembers measurements across runs, :mod:`.results`
holds what came out; :mod:`.save` writes the winners into the tuning database.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from ..families import get_variant
from ..families.base import Variant
from ..operands import check_device_memory
from ..runtime.device import Device
from ..runtime.queue import Queue
from ..runtime.selectors import DeviceSpec, select_device
from ..verify import tolerance
from .cache import MeasurementCache, cache_key, device_key, source_hash
from .measure import Workload, measure
from .results import Candidate, Record, Size, TuneResult, parse_size
from .space import (Point, RestrictionSpec, check_restrictions, enumerate_space, identity,
                    passes, search_space, space_size)
from .strategies import SearchContext, get_strategy, order

MAX_INVALID_KEPT = 5000  # invalid candidates kept as records; all are counted by reason


def tune(variant: str | Variant, device: DeviceSpec | Device = None, sizes=(512,), *,
         space: Mapping[str, Sequence] | None = None,
         restrictions: Sequence[RestrictionSpec] = (),
         strategy: str = "exhaustive", budget_s: float | None = None,
         max_evals: int | None = None, reps: int = 3, warmup: int = 1,
         dtype=np.float32, cache_file=None, progress: bool = True, verify: bool = True,
         seed: int = 0, fraction: float = 0.25,
         first: Sequence[Mapping] = ()) -> TuneResult:
    """Search a variant's parameter space on one device for the fastest verified candidate.

    variant: a registered name or a Variant instance (need not be registered).
    device: a selector spec (see :func:`portgemm.select_device`) or a Device.
    sizes: shapes to tune for, each N (square), (M, N, K) or "MxNxK"; a candidate's
      time is its median kernel time summed over the shapes.
    space: parameter -> values, replacing the variant's ``space`` (parameters left out
      keep their defaults). restrictions: extra predicates over the resolved parameters
      (callables, :class:`Restriction` objects or expressions such as "tile_x <= 4").
    strategy: "exhaustive" (every valid point in order), "random" (a seeded random
      order; with budget_s or max_evals a random sample), "model" (rank by the analytic
      model of :mod:`portgemm.tune.model`, time the top ``fraction``).
    budget_s: wall-clock seconds after which no new candidate is started, but for
      ``first``'s, which are measured whatever the time (walking a large space may
      spend the whole budget).
    max_evals: at most this many candidates evaluated (cached ones count).
    reps, warmup: timed and untimed runs per candidate and shape; kernel_ms is the
      median of the timed runs' event times.
    cache_file: a JSON-lines file; candidates already in it are not measured again, new
      measurements are appended as they finish.
    first: parameter sets measured before all others when they run on the device and
      meet ``restrictions``, in the space or not (a warm start: the winners of earlier
      tunings, the models' choice, which need not be one of the space's values); the
      CLI passes :func:`portgemm.tune.starts.warm_start`'s.
    verify: compare every run with a float64 reference; a relative Frobenius error
      beyond :func:`portgemm.verify.tolerance` (16 eps sqrt(K); a correct float32 kernel
      measures about 0.15 eps sqrt(K)) is "wrong" and never chosen. verify=False still
      rejects NaN output (unwritten elements) but accepts any finite error.
    """
    started = time.perf_counter()
    impl = get_variant(variant) if isinstance(variant, str) else variant
    chosen = select_device(device)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"dtype must be float32 or float64, got {dtype}")
    if dtype == np.float64 and not chosen.has_fp64:
        raise TypeError(f"{chosen.description} has no float64 support; tune with float32")
    get_strategy(strategy)
    if not 0 < fraction <= 1:
        raise ParameterError(f"fraction must be in (0, 1], got {fraction}")
    shapes = _shapes(sizes)
    for m, n, k in shapes:  # operands the device cannot hold: the clear error, up front
        check_device_memory(chosen, np.broadcast_to(np.zeros((), dtype), (m, k)),
                            np.broadcast_to(np.zeros((), dtype), (k, n)))
    chosen_space = search_space(impl, space)
    check_restrictions(impl, restrictions)
    total = space_size(chosen_space)
    valid, invalid, invalid_reasons = _points(impl, chosen, dtype.itemsize, chosen_space,
                                              restrictions, progress)
    valid += _seeds_outside(impl, chosen, dtype.itemsize, first, valid, restrictions)
    context = SearchContext(impl, chosen, shapes, dtype.itemsize, seed, fraction)
    ordered, pruned, warm = order(valid, strategy, context, first)
    skipped = [Candidate(p.params, "skipped", message=why, predicted=cost)
               for p, cost, why in pruned]

    run = _Run(impl, chosen, shapes, dtype, MeasurementCache(cache_file), reps, warmup,
               verify, seed)
    evaluated, stopped = [], ""
    bar = _bar(len(ordered), f"tune {impl.name}", "cand") if progress else None
    try:
        for index, (point, cost) in enumerate(ordered):
            if max_evals is not None and len(evaluated) >= max_evals:
                stopped = f"max_evals={max_evals} reached"
            elif (budget_s is not None and index >= warm
                  and time.perf_counter() - started >= budget_s):
                # (not the warm start: a search cut short saves nothing slower than it)
                stopped = f"budget of {budget_s:g} s spent"
            if stopped:
                skipped.extend(Candidate(p.params, "skipped", message=stopped, predicted=c)
                               for p, c in ordered[index:])
                break
            evaluated.append(run.evaluate(point, cost))
            if bar is not None:
                bar.update(1)
                if run.best is not None:
                    bar.set_postfix_str(f"best {run.best.gflops:.1f} GFLOPS")
    finally:
        if bar is not None:
            bar.close()

    return TuneResult(impl.name, chosen, shapes, dtype.name, strategy,
                      evaluated + skipped + invalid, run.best, total,
                      run.measured, run.from_cache, time.perf_counter() - started, stopped,
                      invalid_reasons)


def _shapes(sizes) -> list[Size]:
    shapes = []
    for s in ([sizes] if isinstance(sizes, (int, str)) else sizes):
        if parse_size(s) not in shapes:
            shapes.append(parse_size(s))
    if not shapes:
        raise ValueError("sizes is empty: give at least one shape to tune for")
    return shapes


def _bar(total: int, desc: str, unit: str):
    """A progress bar on a terminal, else None."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False)


def _points(variant: Variant, device: Device, itemsize: int, space: Mapping,
            restrictions: Sequence[RestrictionSpec], progress: bool):
    """(valid points, invalid candidates kept, count of invalid points by reason)."""
    valid, invalid, reasons = [], [], {}
    total = space_size(space)
    bar = _bar(total, f"space {variant.name}", "pt") if progress and total > 2000 else None
    for point in enumerate_space(variant, device, itemsize, space, restrictions):
        if bar is not None:
            bar.update(point.count)
        if point.valid:
            valid.append(point)
            continue
        reason = sys.intern(point.problem.split(" (got ")[0])
        reasons[reason] = reasons.get(reason, 0) + point.count
        if len(invalid) < MAX_INVALID_KEPT:
            invalid.append(Candidate(point.params, "invalid", message=point.problem))
    if bar is not None:
        bar.close()
    return valid, invalid, reasons


def _seeds_outside(variant: Variant, device: Device, itemsize: int, seeds: Sequence[Mapping],
                   valid: list[Point], restrictions: Sequence[RestrictionSpec]) -> list[Point]:
    """Points for the seeds that run on the device and meet the restrictions but are not
    among the space's valid points: a warm start is measured wherever the space lies."""
    known = {identity(p.params) for p in valid}
    extra = []
    for seed in seeds:
        try:
            params = variant.check(seed, device, itemsize)
        except ParameterError:
            continue
        if identity(params) not in known and passes(params, restrictions):
            known.add(identity(params))
            extra.append(Point(params))
    return extra


class _Run:
    """One tuning run's measuring state: operands per shape, the cache, counts, the best."""

    def __init__(self, variant: Variant, device: Device, shapes: list[Size], dtype: np.dtype,
                 cache: MeasurementCache, reps: int, warmup: int, verify: bool, seed: int):
        self.variant, self.device, self.shapes, self.dtype = variant, device, shapes, dtype
        self.cache, self.reps, self.warmup, self.verify, self.seed = cache, reps, warmup, verify, seed
        self.device_key, self.source_hash = device_key(device), source_hash(variant.source)
        self.workloads: dict[Size, Workload] = {}
        self.measured = self.from_cache = 0
        self.best: Candidate | None = None

    def evaluate(self, point: Point, cost: float | None) -> Candidate:
        """The candidate over every shape: from the cache where it holds the record, else
        measured (on a queue of its own, so its programs are freed after)."""
        candidate = Candidate(point.params, "ok", predicted=cost)
        queue, fresh = None, False
        for size in self.shapes:
            key = cache_key(self.device_key, self.variant.name, self.source_hash, size,
                            self.dtype.name, point.params)
            hit = self.cache.get(key)
            if hit is not None and self._trusted(hit, size):
                record = Record.from_json(hit)
            else:
                queue = queue or Queue(self.device)
                record = measure(queue, self.variant, point.params, self._workload(size),
                                 self.reps, self.warmup)
                self.cache.add(key, record.as_json())
                fresh = True
            candidate.records.append(record)
            if record.status != "ok":
                candidate.status, candidate.message = record.status, record.message
                break
        self.measured += fresh
        self.from_cache += not fresh
        if candidate.status == "ok" and (self.best is None
                                         or candidate.kernel_ms < self.best.kernel_ms):
            self.best = candidate
        return candidate

    def _trusted(self, hit: dict, size: Size) -> bool:
        """Whether a cached record stands for this run: an unverified run measures a
        `wrong` one again; a verified run one whose error it cannot vouch for, an `ok` of
        an unverified run (no error, or one past the tolerance)."""
        if not self.verify:
            return hit["status"] != "wrong"
        relerr = hit.get("relerr")
        return hit["status"] != "ok" or (relerr is not None
                                         and relerr <= tolerance(self.dtype, size[2]))

    def _workload(self, size: Size) -> Workload:
        if size not in self.workloads:
            work = self.workloads[size] = Workload(size, self.dtype, self.seed)
            if not self.verify:
                work.tol = math.inf
        return self.workloads[size]
