"""Timing one (device, variant, params, shape) case, and the record it produces."""

from __future__ import annotations

import os
import re
import statistics
import time
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from typing import Any, Callable

import numpy as np

from ..api import gemm
from ..errors import BuildError, ParameterError
from ..operands import MAX_ELEMENTS, layout_of
from .targets import Target
from ..verify import relative_error, tolerance

RECORD_FIELDS = ("device", "filter_string", "variant", "source", "params", "dtype", "m", "n", "k",
                 "layout", "kernel_ms", "wall_ms", "gflops", "reference", "ref_ms", "ref_spread",
                 "ref_gflops", "pct_of_ref", "relerr", "clblast_ms", "pct_of_clblast", "status")


@dataclass
class BenchRecord:
    """One row of the benchmark table / one JSON record."""

    device: str
    filter_string: str
    variant: str
    params: dict[str, Any]
    dtype: str
    m: int
    n: int
    k: int
    layout: str = "CC"               # A's and B's order: C row-major, F column-major
    kernel_ms: float | None = None   # median kernel time from OpenCL events
    wall_ms: float | None = None     # median end-to-end time, transfers included
    gflops: float | None = None      # from kernel_ms
    reference: str = ""
    ref_ms: float | None = None
    ref_spread: float | None = None  # the reference's slowest run over its fastest, turn about
    ref_gflops: float | None = None
    pct_of_ref: float | None = None  # gflops / ref_gflops * 100
    relerr: float | None = None      # ||C - C64|| / ||C64||, Frobenius
    clblast_ms: float | None = None  # CLBlast on the same device, same run (pyclblast)
    pct_of_clblast: float | None = None
    status: str = "ok"
    source: str = ""  # where variant and params came from (GemmResult.source) once run
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    """``256,512`` (square) or ``MxNxK`` items, comma-separated."""
    shapes = []
    for item in text.split(","):
        item = item.strip().lower()
        if re.fullmatch(r"\d+", item):
            shapes.append((int(item),) * 3)
        elif re.fullmatch(r"\d+x\d+x\d+", item):
            m, n, k = (int(v) for v in item.split("x"))
            shapes.append((m, n, k))
        else:
            raise ValueError(f"size {item!r} is neither N nor MxNxK")
        if min(shapes[-1]) < 1:
            raise ValueError(f"size {item!r} has a dimension below 1")
    return shapes


def check_sizes_fit(shapes, itemsize: int) -> None:
    """ValueError for a shape no run could hold: a matrix past the kernels' 32-bit index
    limit, or operands and their float64 reference (about (MK + KN) (itemsize + 8) +
    MN (8 + 2 itemsize) bytes) past this machine's memory (numpy failed with a
    traceback, allocating them)."""
    memory = _physical_memory()
    for m, n, k in shapes:
        if max(m * k, k * n, m * n) > MAX_ELEMENTS:
            raise ValueError(f"size {m}x{n}x{k}: a matrix of more than {MAX_ELEMENTS} "
                             f"values, past the kernels' 32-bit index limit")
        needed = (m * k + k * n) * (itemsize + 8) + m * n * (8 + 2 * itemsize)
        if memory and needed > memory:
            raise ValueError(f"size {m}x{n}x{k} needs about {needed / 2**30:.1f} GiB of host "
                             f"memory (operands and their float64 reference); this "
                             f"machine has {memory / 2**30:.1f} GiB")


def _physical_memory() -> int | None:
    """Bytes of physical memory, None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


# turn_about: blocks of runs a side, and the pause before each block that lets the other
# side's idle threads stop spinning (OpenBLAS's spin for ~0.1 s after a call, and took a
# 256^3 numpy call from 0.1 to 1.3 ms right after an OpenCL kernel on a 2-core machine)
TURNS = 3
SETTLE_S = 0.15


def turn_about(call: Callable, beside: Callable[[], float], reps: int) -> tuple[list, list]:
    """``reps`` results of ``call`` and ``reps`` times of ``beside``, taken in TURNS blocks
    a side, alternating; each block starts with a pause and one untimed call."""
    runs, beside_ms = [], []
    for turn in range(TURNS):
        size = reps * (turn + 1) // TURNS - reps * turn // TURNS
        if size == 0:
            continue
        for side, results in ((call, runs), (beside, beside_ms)):
            time.sleep(SETTLE_S)
            side()
            results.extend(times_only(side()) for _ in range(size))
    return runs, beside_ms


def times_only(result):
    """A timed result (a dataclass with C in ``c``: GemmResult, an experiment's Timing)
    without its C; anything else as it is. Kept, every run's C lands in memory the
    process never had, numpy's dropped output does not: 4096x4096x64 on Intel's CPU
    runtime read 78-104 ms where the same calls with C dropped took 14-18 ms, numpy's
    speed (bench/results/2026-11-23-cpu-zen5-layout)."""
    return replace(result, c=None) if is_dataclass(result) and hasattr(result, "c") else result


def bench_case(target: Target, variant: str, params: dict | None, a: np.ndarray,
               b: np.ndarray, reference64: np.ndarray, *, reps: int, warmup: int,
               beside: Callable[[], float] | None = None) -> BenchRecord:
    """Warm up, then time ``reps`` runs; the first result is checked against float64.

    ``beside`` (a reference call returning its ms) is timed turn about with the case
    (:func:`turn_about`) and its median becomes the record's ``ref_ms``: on a shared
    machine whose speed drifts from minute to minute, a ratio of runs taken turn about is
    fair where one of runs taken minutes apart is not.
    """
    m, k = a.shape
    n = b.shape[1]
    record = BenchRecord(target.device.name, target.label, variant, dict(params or {}),
                         str(a.dtype), m, n, k, layout_of(a, b))

    def call(poison=None):
        return gemm(a, b, device=target.device, variant=variant, params=params,
                    backend=target.backend, poison=poison)

    try:
        first = call(poison=np.nan)
        record.params = first.params
        record.source = first.source
        record.variant = first.variant if variant != "auto" else f"auto:{first.variant}"
        for _ in range(max(warmup - 1, 0)):
            call()
        if beside is None:
            runs, beside_ms = [times_only(call()) for _ in range(reps)], []
        else:
            runs, beside_ms = turn_about(call, beside, reps)
    except BuildError as exc:
        record.status = f"build failed: {exc.first_error or exc}"
        return record
    except (ParameterError, TypeError) as exc:
        record.status = f"skipped: {str(exc).splitlines()[0]}"
        return record
    record.kernel_ms = statistics.median(r.kernel_ms for r in runs)
    record.wall_ms = statistics.median(r.wall_ms for r in runs)
    record.gflops = 2.0 * m * n * k / (record.kernel_ms * 1e6)
    if beside_ms:
        record.ref_ms = statistics.median(beside_ms)
        record.ref_spread = max(beside_ms) / min(beside_ms) if min(beside_ms) > 0 else None
    record.relerr = relative_error(first.c, reference64)
    if not record.relerr <= tolerance(a.dtype, k):  # NaN (an unwritten element) fails too
        record.status = "WRONG"
    return record
