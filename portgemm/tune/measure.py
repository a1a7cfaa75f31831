"""Measuring one candidate on one shape: verified against float64, timed by events."""

from __future__ import annotations

import math
import statistics
from typing import Mapping

import numpy as np

from ..backends import Resolved, get_backend
from ..backends.transfers import policy_for
from ..operands import is_device_array
from ..errors import BuildError
from ..families.base import Variant
from ..runtime.queue import Queue
from ..verify import reference, relative_error, tolerance
from .results import Record, Size


class Workload:
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
        self._uploaded = None  # (queue, A, B) on the last queue asked for

    def relerr(self, c) -> float:
        """portgemm.verify's relative error; inf when C holds NaN (unwritten elements)."""
        error = relative_error(c.get() if is_device_array(c) else c, self.ref)
        return error if math.isfinite(error) else math.inf

    def operands(self, queue: Queue):
        """A and B as the candidate reads them: on a device that copies operands (a
        discrete GPU) uploaded once to the queue, so each run times the kernel, not the bus;
        elsewhere (shared memory) the numpy arrays themselves."""
        if policy_for(queue.device) in ("svm", "host_ptr"):
            return self.a, self.b
        if self._uploaded is None or self._uploaded[0] is not queue:
            import pyopencl.array as cl_array

            self._uploaded = (queue, cl_array.to_device(queue.cl_queue, self.a),
                              cl_array.to_device(queue.cl_queue, self.b))
        return self._uploaded[1:]


def measure(queue: Queue, variant: Variant, params: Mapping, work: Workload,
            reps: int, warmup: int) -> Record:
    """Run ``reps`` timed (after ``warmup`` untimed) calls on a poisoned C, each checked;
    a build failure, a runtime error or a wrong result ends it with that status."""
    backend, call = get_backend("opencl"), Resolved(queue.device, variant.name, params, variant)
    times, worst = [], 0.0
    try:
        a, b = work.operands(queue)
    except Exception as exc:  # the device cannot hold them
        return Record(params, work.size, "failed", message=f"{type(exc).__name__}: {exc}")
    for run in range(max(warmup, 0) + max(reps, 1)):
        try:
            result = backend.run(call, a, b, poison=float("nan"), queue=queue)
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


def times_in_turns(queue: Queue, variant: Variant, candidates: list[Mapping],
                   work: Workload, rounds: int, reps: int = 2,
                   warmup: int = 1) -> list[list[float]]:
    """Each candidate's kernel times over ``rounds`` turns, the candidates taking turns in
    an order that rotates from round to round: a fresh measurement of finalists chosen by
    an earlier one, which picked them partly for their luck (the lowest of many noisy
    times is biased low), and one in which a slow spell of a shared host falls on all
    of them. A candidate that fails a turn adds no times that turn."""
    times: list[list[float]] = [[] for _ in candidates]
    for turn in range(rounds):
        for step in range(len(candidates)):
            index = (turn + step) % len(candidates)
            record = measure(queue, variant, candidates[index], work, reps=reps,
                             warmup=warmup)
            if record.status == "ok":
                times[index].extend(record.times_ms)
    return times
