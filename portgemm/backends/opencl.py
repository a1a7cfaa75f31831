"""The OpenCL backend: the kernel families of ``kernels_cl/`` run through pyopencl."""

from __future__ import annotations

import time
from typing import Any, Mapping

import numpy as np

from ..auto import choose
from ..caches import memoize
from ..errors import ParameterError
from ..families import Variant, get_variant, variant_names
from ..operands import as_operand
from ..result import GemmResult
from ..runtime.device import Device
from ..runtime.queue import Queue
from ..runtime.selectors import DeviceSpec, select_device, select_devices
from . import Resolved


def build_options(variant: Variant, params: Mapping, dtype: np.dtype,
                  a_colmajor: bool, b_colmajor: bool) -> tuple[str, ...]:
    """The -D options that select one compiled kernel of a variant's family."""
    real = "double" if dtype == np.float64 else "float"
    defines = {"REAL": real, "USE_FP64": int(dtype == np.float64),
               "A_COLMAJOR": int(a_colmajor), "B_COLMAJOR": int(b_colmajor),
               **dict(variant.checked_defines(params))}
    return tuple(f"-D{name}={value}" for name, value in sorted(defines.items())) + (
        "-cl-mad-enable",)


@memoize(maxsize=512)
def launch_plan(variant: Variant, params: tuple, m: int, n: int, k: int, dtype: np.dtype,
                a_colmajor: bool, b_colmajor: bool):
    """(LaunchPlan, build options) of one call, remembered: repeated shapes skip the work."""
    params = dict(params)
    return (variant.plan(m, n, k, params, dtype.itemsize),
            build_options(variant, params, dtype, a_colmajor, b_colmajor))


def run_gemm(queue: Queue, variant: Variant, params: Mapping, a: np.ndarray, b: np.ndarray,
             *, poison: float | None = None) -> GemmResult:
    """C = A @ B with checked operands and resolved parameters.

    ``poison`` fills C on the device before the kernel runs, so elements the kernel
    never writes show up (tests use NaN).
    """
    start = time.perf_counter()
    m, k = a.shape
    n = b.shape[1]
    op_a, op_b = as_operand(a), as_operand(b)
    plan, options = launch_plan(variant, tuple(params.items()), m, n, k, a.dtype,
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


@memoize(maxsize=256)
def _checked(impl: Variant, params: tuple, device: Device, itemsize: int) -> dict:
    """Variant.check, remembered: a warm call repeats the same parameters."""
    return impl.check({key: value for key, _, value in params}, device, itemsize)


class OpenCLBackend:
    name = "opencl"

    def device(self, spec: DeviceSpec = None) -> Device:
        return select_device(spec)

    def devices(self, spec: str | None = None) -> list[Device]:
        if spec is None:
            return select_devices("all")
        return [select_device(None)] if spec == "" else select_devices(spec)

    def label(self, device: Device) -> str:
        return device.filter_string

    def variants(self, device: Device | None = None) -> list[str]:
        return variant_names(device)

    def variant(self, name: str) -> Variant:
        return get_variant(name)

    def resolve(self, device: Device, variant: str, params: Mapping[str, Any] | None,
                shape: tuple[int, int, int], dtype: np.dtype) -> Resolved:
        if dtype == np.float64 and not device.has_fp64:
            raise TypeError(f"{device.description} has no float64 support; use float32")
        if variant == "auto":
            if params:
                raise ParameterError("params need a named variant; variant='auto' picks its own")
            choice = choose(device, *shape, dtype.itemsize)
            return Resolved(device, choice.variant, choice.params, get_variant(choice.variant),
                            choice.source, choice.reason)
        impl = get_variant(variant)
        # the type is part of the key: True == 1, but True is refused where 1 is not
        items = tuple((key, type(value), value) for key, value in (params or {}).items())
        try:
            hash(items)
        except TypeError:  # e.g. a list as a value: checked (and refused) without the memo
            checked = impl.check(dict(params), device, dtype.itemsize)
        else:
            checked = _checked(impl, items, device, dtype.itemsize)
        return Resolved(device, variant, checked, impl)

    def run(self, resolved: Resolved, a, b, *, poison: float | None = None,
            queue: Queue | None = None) -> GemmResult:
        """``queue``: another queue on the same device (the tuner's, to free programs)."""
        result = run_gemm(queue or Queue.for_device(resolved.device), resolved.impl,
                          resolved.params, a, b, poison=poison)
        result.source, result.reason = resolved.source, resolved.reason
        return result


BACKEND = OpenCLBackend()
