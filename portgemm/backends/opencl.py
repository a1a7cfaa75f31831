"""Run a GEMM variant's launch plan on an OpenCL device through pyopencl."""

from __future__ import annotations

import time
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..operands import as_operand
from ..runtime.device import Device
from ..runtime.queue import Event, Queue
from ..variants.base import Variant


@dataclass
class GemmResult:
    """C and how it was made: the device, the variant and parameters, and its times."""

    c: np.ndarray
    device: Device
    variant: str
    params: dict[str, Any]
    kernel_ms: float  # device time of the GEMM kernel, from OpenCL profiling events
    wall_ms: float    # host time of the whole call: uploads, kernel, download
    backend: str = "opencl"
    event: Event | None = field(default=None, repr=False)


def build_options(variant: Variant, params: dict, dtype: np.dtype,
                  a_colmajor: bool, b_colmajor: bool) -> tuple[str, ...]:
    """The -D options that select one compiled kernel of a variant's family."""
    real = "double" if dtype == np.float64 else "float"
    defines = {"REAL": real, "USE_FP64": int(dtype == np.float64),
               "A_COLMAJOR": int(a_colmajor), "B_COLMAJOR": int(b_colmajor),
               **variant.defines(params)}
    return tuple(f"-D{name}={value}" for name, value in sorted(defines.items())) + (
        "-cl-mad-enable",)


@lru_cache(maxsize=512)
def _launch(variant: Variant, params: tuple, m: int, n: int, k: int, dtype: np.dtype,
            a_colmajor: bool, b_colmajor: bool):
    """Plan and build options of one call, remembered: repeated shapes skip the work."""
    params = dict(params)
    return (variant.plan(m, n, k, params, dtype.itemsize),
            build_options(variant, params, dtype, a_colmajor, b_colmajor))


def run_gemm(queue: Queue, variant: Variant, params: dict, a: np.ndarray, b: np.ndarray,
             *, poison: float | None = None) -> GemmResult:
    """C = A @ B with checked operands and resolved parameters.

    ``poison`` fills C on the device before the kernel runs, so elements the kernel
    never writes show up (tests use NaN).
    """
    start = time.perf_counter()
    m, k = a.shape
    n = b.shape[1]
    op_a, op_b = as_operand(a), as_operand(b)
    plan, options = _launch(variant, tuple(params.items()), m, n, k, a.dtype,
                            op_a.colmajor, op_b.colmajor)
    kernel = queue.kernel(variant.source, "gemm", options)

    c = np.empty((m, n), dtype=a.dtype)
    buf_a, buf_b = queue.to_device(op_a.data), queue.to_device(op_b.data)
    buf_c = queue.empty(c.nbytes)
    waits = [queue.fill(buf_c, c.dtype.type(poison), c.nbytes).cl_event] if poison is not None else None
    i32 = np.int32
    event = queue.submit(kernel, plan.ndrange, i32(m), i32(n), i32(k), buf_a, i32(op_a.ld),
                         buf_b, i32(op_b.ld), buf_c, i32(n), wait_for=waits)
    queue.to_host(buf_c, c)  # the queue is in order: the copy follows the kernel
    wall_ms = (time.perf_counter() - start) * 1e3
    return GemmResult(c, queue.device, variant.name, dict(params), event.kernel_ms, wall_ms,
                      event=event)
