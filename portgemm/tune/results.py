"""What a tuning run produces: a record per candidate and shape, candidates, the result
with its tables and database entries."""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from ..auto.shapes import device_class
from ..parallel import is_int
from ..runtime.device import Device

STATUSES = ("ok", "invalid", "failed", "wrong", "skipped")
Size = tuple[int, int, int]


def parse_size(size) -> Size:
    """256 -> (256, 256, 256); (m, n, k) as it is; "256x512x128" or "256" from text."""
    if isinstance(size, str):
        parts = [int(p) for p in size.lower().replace("*", "x").split("x")]
        size = parts[0] if len(parts) == 1 else tuple(parts)
    if is_int(size):
        size = (int(size),) * 3
    if not (isinstance(size, (tuple, list)) and all(is_int(s) for s in size)):
        raise ValueError(f"a size is N, (M, N, K) or 'MxNxK' of integers, got {size!r}")
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
    # a quick tune's showdown: (params, median ms) of each finalist, timed again in turn
    showdown: list[tuple[dict, float]] = field(default_factory=list)

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
        classes: dict[str, list[Size]] = {}
        for size in self.sizes:
            classes.setdefault(device_class(self.device, *size, np.dtype(self.dtype).itemsize)[0],
                               []).append(size)
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
        # warm-start points outside the space are measured too (more ok than points)
        beside = sum(self.counts().values()) - self.space_size
        space = f"space {self.space_size} points" + (
            f" and {beside} warm start{'s' if beside > 1 else ''} outside it" if beside > 0 else "")
        text = (f"{self.variant} on {self.device.description}, {self.dtype}, sizes {sizes}: "
                f"strategy {self.strategy}, {space} ({counts}); "
                f"measured {self.measured}, from cache {self.from_cache}, "
                f"{self.elapsed_s:.1f} s")
        if self.stopped:
            text += f"; stopped early: {self.stopped}"
        if self.invalid_reasons:
            common = sorted(self.invalid_reasons.items(), key=lambda kv: -kv[1])[:3]
            text += "\ninvalid: " + "; ".join(f"{n} x {_short(r, 90)}" for r, n in common)
        if self.showdown:  # the best is the showdown's, not the table's first row
            text += "\nshowdown of the fastest, timed again in turn (median ms): " + "; ".join(
                f"{params} {ms:.4f}" for params, ms in self.showdown)
        if self.best is not None:
            text += (f"\nbest: {self.best.params} {self.best.kernel_ms:.4f} ms, "
                     f"{self.best.gflops:.2f} GFLOPS")
        else:
            text += f"\nbest: none ({self.why_no_best})"
        return text

    @property
    def why_no_best(self) -> str:
        """Why :attr:`best` is None: nothing was measured (a budget spent walking the
        space, a space of no valid point), or nothing measured ran correctly."""
        if self.measured or self.from_cache:
            return "no candidate was verified correct"
        return "no candidate was measured" + (f": {self.stopped}" if self.stopped else "")


def _short(message: str, limit: int = 70) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."
