"""The autotuner: measure a variant's parameter space on a device, verified, and keep the
fastest correct candidate.

    from portgemm.tune import tune
    result = tune("tiled", "intel", [512], strategy="model", budget_s=60)
    result.best.params, result.best.kernel_ms
    print(result.table())

Every candidate runs through the same path as ``portgemm.gemm`` (the variant's launch
plan and ``backends.opencl.run_gemm``) on operands poisoned with NaN, and its output is
compared with a float64 reference before its time counts.
"""

from __future__ import annotations

import datetime
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..backends.opencl import run_gemm
from ..errors import BuildError, ParameterError
from ..runtime.device import Device
from ..runtime.queue import Queue
from ..runtime.selectors import DeviceSpec, select_device
from ..variants import get_variant
from ..variants.base import Variant
from ..verify import reference, relative_error, tolerance
from .cache import MeasurementCache, cache_key, device_key, source_hash
from .model import predicted_cost
from .space import RestrictionSpec, enumerate_space, search_space, space_size

STRATEGIES = ("exhaustive", "random", "model")
STATUSES = ("ok", "invalid", "failed", "wrong", "skipped")
MAX_INVALID_KEPT = 5000  # invalid candidates kept as records; all are counted by reason
Size = tuple[int, int, int]


def parse_size(size) -> Size:
    """256 -> (256, 256, 256); (m, n, k) as it is; "256x512x128" or "256" from text."""
    if isinstance(size, str):
        parts = [int(p) for p in size.lower().replace("*", "x").split("x")]
        size = parts[0] if len(parts) == 1 else tuple(parts)
    if isinstance(size, (int, np.integer)):
        size = (int(size),) * 3
    size = tuple(int(s) for s in size)
    if len(size) != 3 or min(size) < 1:
        raise ValueError(f"a size is N, (M, N, K) or 'MxNxK' with every dimension >= 1, "
                         f"got {size!r}")
    return size


@dataclass
class Record:
    """One candidate measured (or not) on one shape."""

    params: dict[str, Any]
    size: Size
    status: str                       # ok / failed / wrong
    kernel_ms: float | None = None    # median of the timed runs (OpenCL profiling events)
    gflops: float | None = None
    relerr: float | None = None       # largest relative Frobenius error over the runs
    times_ms: list[float] = field(default_factory=list)
    message: str = ""
    cached: bool = False              # read from the cache file, not measured now

    def as_json(self) -> dict:
        return {"params": self.params, "size": list(self.size), "status": self.status,
                "kernel_ms": self.kernel_ms, "gflops": self.gflops,
                "relerr": None if self.relerr is None or math.isinf(self.relerr) else self.relerr,
                "times_ms": self.times_ms, "message": self.message}

    @classmethod
    def from_json(cls, data: Mapping) -> "Record":
        relerr = data.get("relerr")
        if relerr is None and data.get("status") == "wrong":
            relerr = math.inf
        return cls(dict(data["params"]), tuple(data["size"]), data["status"],
                   data.get("kernel_ms"), data.get("gflops"), relerr,
                   list(data.get("times_ms") or []), data.get("message", ""), cached=True)


@dataclass
class Candidate:
    """One parameter set over all the tuned shapes."""

    params: dict[str, Any]
    status: str                       # ok / invalid / failed / wrong / skipped
    records: list[Record] = field(default_factory=list)
    message: str = ""                 # why invalid, failed, wrong or skipped
    predicted: float | None = None    # the model's cost (model strategy only)

    @property
    def kernel_ms(self) -> float | None:
        """Sum over the shapes of the median kernel time; None unless ok."""
        if self.status != "ok":
            return None
        return sum(r.kernel_ms for r in self.records)

    @property
    def gflops(self) -> float | None:
        if self.status != "ok":
            return None
        flops = sum(2.0 * m * n * k for m, n, k in (r.size for r in self.records))
        return flops / (self.kernel_ms * 1e6) if self.kernel_ms > 0 else math.inf

    @property
    def relerr(self) -> float | None:
        errors = [r.relerr for r in self.records if r.relerr is not None]
        return max(errors) if errors else None

    @property
    def cached(self) -> bool:
        return bool(self.records) and all(r.cached for r in self.records)


@dataclass
class TuneResult:
    """Every candidate of a tuning run and the fastest verified one."""

    variant: str
    device: Device
    sizes: list[Size]
    dtype: str
    strategy: str
    candidates: list[Candidate]
    best: Candidate | None
    space_size: int
    measured: int          # candidates measured in this run
    from_cache: int        # candidates whose every record came from the cache file
    elapsed_s: float
    stopped: str = ""      # why the search ended early ("budget", "max_evals"), if it did
    invalid_reasons: dict[str, int] = field(default_factory=dict)  # every invalid point

    @property
    def invalid_count(self) -> int:
        """Invalid points of the space (only the first MAX_INVALID_KEPT are candidates)."""
        return sum(self.invalid_reasons.values())

    @property
    def best_params(self) -> dict[str, Any] | None:
        return None if self.best is None else dict(self.best.params)

    @property
    def records(self) -> list[Record]:
        return [r for c in self.candidates for r in c.records]

    def by_status(self, status: str) -> list[Candidate]:
        return [c for c in self.candidates if c.status == status]

    @property
    def ok(self) -> list[Candidate]:
        return self.by_status("ok")

    def counts(self) -> dict[str, int]:
        found = {s: len(self.by_status(s)) for s in STATUSES}
        found["invalid"] = self.invalid_count
        return {s: n for s, n in found.items() if n}

    def best_for(self, sizes: Iterable) -> tuple[Candidate, float, float] | None:
        """(candidate, kernel_ms summed over ``sizes``, GFLOPS) of the fastest candidate
        verified on every one of ``sizes``; None when none is."""
        wanted = {parse_size(s) for s in sizes}
        best = None
        for c in self.ok:
            rows = [r for r in c.records if r.size in wanted]
            if len(rows) != len(wanted):
                continue
            ms = sum(r.kernel_ms for r in rows)
            if best is None or ms < best[1]:
                flops = sum(2.0 * m * n * k for m, n, k in wanted)
                best = (c, ms, flops / (ms * 1e6) if ms > 0 else math.inf)
        return best

    def database_entries(self) -> list[dict]:
        """One tuning-database entry per shape class among the tuned sizes: the fastest
        candidate verified on all of that class's sizes."""
        from .db import shape_class

        classes: dict[str, list[Size]] = {}
        for size in self.sizes:
            classes.setdefault(shape_class(*size), []).append(size)
        entries = []
        stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        for name, sizes in classes.items():
            found = self.best_for(sizes)
            if found is None:
                continue
            candidate, ms, gflops = found
            entries.append({"variant": self.variant, "shape_class": name, "dtype": self.dtype,
                            "params": dict(candidate.params), "kernel_ms": round(ms, 6),
                            "gflops": round(gflops, 3), "sizes": [list(s) for s in sizes],
                            "strategy": self.strategy, "evaluated": len(self.ok)
                            + len(self.by_status("failed")) + len(self.by_status("wrong")),
                            "tuned_at": stamp})
        return entries

    def table(self, top: int = 10, *, include_rejected: bool = True) -> str:
        """A text table of the ``top`` fastest verified candidates, then (optionally) a
        few rejected ones with their reasons."""
        from tabulate import tabulate

        names = list(self.best.params) if self.best else (
            list(self.candidates[0].params) if self.candidates else [])
        ranked = sorted(self.ok, key=lambda c: c.kernel_ms)[:top]
        rows = []
        for rank, c in enumerate(ranked, 1):
            rows.append([rank, *(c.params.get(n) for n in names), f"{c.kernel_ms:.4f}",
                         f"{c.gflops:.2f}", f"{c.relerr:.1e}",
                         "ok (cached)" if c.cached else "ok"])
        if include_rejected:
            for status in ("wrong", "failed"):
                for c in self.by_status(status)[:3]:
                    err = "" if c.relerr is None else (
                        "inf" if math.isinf(c.relerr) else f"{c.relerr:.1e}")
                    rows.append(["-", *(c.params.get(n) for n in names), "", "", err,
                                 f"{status}: {_short(c.message)}"])
        headers = ["rank", *names, "kernel ms", "GFLOPS", "relerr", "status"]
        return tabulate(rows, headers=headers, disable_numparse=True)

    def summary(self) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in self.counts().items())
        sizes = ", ".join("x".join(map(str, s)) for s in self.sizes)
        text = (f"{self.variant} on {self.device.description}, {self.dtype}, sizes {sizes}: "
                f"strategy {self.strategy}, space {self.space_size} points ({counts}); "
                f"measured {self.measured}, from cache {self.from_cache}, "
                f"{self.elapsed_s:.1f} s")
        if self.stopped:
            text += f"; stopped early: {self.stopped}"
        if self.invalid_reasons:
            common = sorted(self.invalid_reasons.items(), key=lambda kv: -kv[1])[:3]
            text += "\ninvalid: " + "; ".join(f"{n} x {_short(r, 90)}" for r, n in common)
        if self.best is not None:
            text += (f"\nbest: {self.best.params} {self.best.kernel_ms:.4f} ms, "
                     f"{self.best.gflops:.2f} GFLOPS")
        else:
            text += "\nbest: none (no candidate was verified correct)"
        return text


def _short(message: str, limit: int = 70) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


class _Workload:
    """Operands and the float64 reference of one shape, made once per tuning run."""

    def __init__(self, size: Size, dtype, seed: int):
        m, n, k = size
        rng = np.random.default_rng([seed, m, n, k])
        self.size = size
        self.a = rng.uniform(-1, 1, (m, k)).astype(dtype)
        self.b = rng.uniform(-1, 1, (k, n)).astype(dtype)
        self.ref = reference(self.a, self.b)
        self.tol = tolerance(dtype, k)
        self.flops = 2.0 * m * n * k

    def relerr(self, c: np.ndarray) -> float:
        """portgemm.verify's relative error; inf when C holds NaN (unwritten elements)."""
        error = relative_error(c, self.ref)
        return error if math.isfinite(error) else math.inf


def _measure(queue: Queue, variant: Variant, params: dict, work: _Workload,
             reps: int, warmup: int) -> Record:
    times, worst = [], 0.0
    for run in range(max(warmup, 0) + max(reps, 1)):
        try:
            result = run_gemm(queue, variant, params, work.a, work.b, poison=float("nan"))
        except BuildError as exc:
            return Record(params, work.size, "failed", message=f"BuildError: {exc}")
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # an OpenCL runtime error: out of resources, ...
            return Record(params, work.size, "failed", message=f"{type(exc).__name__}: {exc}")
        error = work.relerr(result.c)
        worst = max(worst, error)
        if math.isinf(error) or not error <= work.tol:
            return Record(params, work.size, "wrong", relerr=error,
                          message=f"relative error {error:.3g} above tolerance {work.tol:.3g}"
                          + (" (NaN: elements left unwritten)" if math.isinf(error) else ""))
        if run >= warmup:
            times.append(result.kernel_ms)
    median = statistics.median(times)
    return Record(params, work.size, "ok", kernel_ms=median,
                  gflops=work.flops / (median * 1e6) if median > 0 else math.inf,
                  relerr=worst, times_ms=times)


def _order(points: list, strategy: str, seed: int, variant: Variant, device: Device,
           sizes: list[Size], itemsize: int, fraction: float, first=()):
    """The valid points in the order they are measured, each with its model cost, and
    the ones the strategy leaves out with the reason. Points equal to one of ``first``
    (after resolving) go to the front, whatever the strategy."""
    wanted = set()
    for params in first:
        try:
            wanted.add(tuple(sorted(variant.resolve(params).items())))
        except ParameterError:
            continue
    if wanted:
        front = [p for p in points if tuple(sorted(p.params.items())) in wanted]
        rest = [p for p in points if tuple(sorted(p.params.items())) not in wanted]
        kept, pruned = _order(rest, strategy, seed, variant, device, sizes, itemsize,
                              fraction)
        return [(p, None) for p in front] + kept, pruned
    if strategy == "exhaustive":
        return [(p, None) for p in points], []
    if strategy == "random":
        order = np.random.default_rng(seed).permutation(len(points))
        return [(points[i], None) for i in order], []
    costs = [predicted_cost(variant, p.params, device, sizes, itemsize) for p in points]
    # Parameters the model cannot see (unrolling, padding, ...) leave ties; a seeded
    # shuffle among equal predictions samples them instead of taking the first in order.
    tiebreak = np.random.default_rng(seed).random(len(points))
    ranked = sorted(range(len(points)), key=lambda i: (costs[i], tiebreak[i]))
    keep = max(1, math.ceil(fraction * len(points)))
    kept = [(points[i], costs[i]) for i in ranked[:keep]]
    pruned = [(points[i], costs[i], f"pruned by the model: rank {r + 1} of {len(points)}, "
               f"only the top {keep} are timed")
              for r, i in enumerate(ranked[keep:], start=keep)]
    return kept, pruned


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
    budget_s: wall-clock seconds after which no new candidate is started.
    max_evals: at most this many candidates evaluated (cached ones count).
    reps, warmup: timed and untimed runs per candidate and shape; kernel_ms is the
      median of the timed runs' event times.
    cache_file: a JSON-lines file; candidates already in it are not measured again, new
      measurements are appended as they finish.
    first: parameter sets measured before all others when they are valid points of the
      space (a warm start: the winners of earlier tunings, say); the CLI passes the
      tuning database's entries for this device and variant.
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
    if strategy not in STRATEGIES:
        raise ParameterError(f"unknown strategy {strategy!r}; choose one of "
                             f"{', '.join(STRATEGIES)}")
    if not 0 < fraction <= 1:
        raise ParameterError(f"fraction must be in (0, 1], got {fraction}")
    shapes = []
    for s in ([sizes] if isinstance(sizes, (int, str)) else sizes):
        if parse_size(s) not in shapes:
            shapes.append(parse_size(s))
    if not shapes:
        raise ValueError("sizes is empty: give at least one shape to tune for")
    itemsize = dtype.itemsize

    chosen_space = search_space(impl, space)
    total = space_size(chosen_space)
    valid, candidates, invalid_reasons = [], [], {}
    space_bar = None
    if progress and sys.stderr.isatty() and total > 2000:
        from tqdm import tqdm

        space_bar = tqdm(total=total, desc=f"space {impl.name}", unit="pt",
                         file=sys.stderr, leave=False)
    for point in enumerate_space(impl, chosen, itemsize, chosen_space, restrictions):
        if space_bar is not None:
            space_bar.update(point.count)
        if point.valid:
            valid.append(point)
            continue
        reason = sys.intern(point.problem.split(" (got ")[0])
        invalid_reasons[reason] = invalid_reasons.get(reason, 0) + point.count
        if len(candidates) < MAX_INVALID_KEPT:
            candidates.append(Candidate(point.params, "invalid", message=point.problem))
    if space_bar is not None:
        space_bar.close()
    order, pruned = _order(valid, strategy, seed, impl, chosen, shapes, itemsize, fraction,
                           first)
    skipped = [Candidate(p.params, "skipped", message=why, predicted=cost)
               for p, cost, why in pruned]

    cache = MeasurementCache(cache_file)
    dev_key, src = device_key(chosen), source_hash(impl.source)
    workloads: dict[Size, _Workload] = {}
    measured = from_cache = 0
    stopped = ""
    evaluated: list[Candidate] = []
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(order), desc=f"tune {impl.name}", unit="cand", file=sys.stderr)
    best: Candidate | None = None
    try:
        for index, (point, cost) in enumerate(order):
            if max_evals is not None and len(evaluated) >= max_evals:
                stopped = f"max_evals={max_evals} reached"
            elif budget_s is not None and time.perf_counter() - started >= budget_s:
                stopped = f"budget of {budget_s:g} s spent"
            if stopped:
                skipped.extend(Candidate(p.params, "skipped", message=stopped, predicted=c)
                               for p, c in order[index:])
                break
            candidate = Candidate(point.params, "ok", predicted=cost)
            queue = None
            fresh = False
            for size in shapes:
                key = cache_key(dev_key, impl.name, src, size, dtype.name, point.params)
                hit = cache.get(key)
                if hit is not None and (verify or hit["status"] != "wrong"):
                    record = Record.from_json(hit)
                else:
                    if queue is None:  # a queue per candidate: its programs are freed after
                        queue = Queue(chosen)
                    if size not in workloads:
                        workloads[size] = _Workload(size, dtype, seed)
                    work = workloads[size]
                    if not verify:
                        work.tol = math.inf
                    record = _measure(queue, impl, point.params, work, reps, warmup)
                    cache.add(key, record.as_json())
                    fresh = True
                candidate.records.append(record)
                if record.status != "ok":
                    candidate.status, candidate.message = record.status, record.message
                    break
            measured += fresh
            from_cache += not fresh
            evaluated.append(candidate)
            if candidate.status == "ok" and (best is None or candidate.kernel_ms < best.kernel_ms):
                best = candidate
            if bar is not None:
                bar.update(1)
                if best is not None:
                    bar.set_postfix_str(f"best {best.gflops:.1f} GFLOPS")
    finally:
        if bar is not None:
            bar.close()

    return TuneResult(impl.name, chosen, shapes, dtype.name, strategy,
                      evaluated + skipped + candidates, best, total,
                      measured, from_cache, time.perf_counter() - started, stopped,
                      invalid_reasons)
