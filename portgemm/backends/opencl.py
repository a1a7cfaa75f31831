"""The OpenCL backend: the kernel families of ``kernels_cl/`` run through pyopencl."""

from __future__ import annotations

import time
from typing import Any, Mapping

import numpy as np

from ..auto import choose
from ..auto.default import named_defaults
from ..caches import memoize
from ..errors import ParameterError
from ..families import Variant, get_variant, variant_names
from ..families.launch import build_options, launch_plan  # noqa: F401 (callers import them here)
from ..operands import as_operand, is_device_array
from ..result import GemmResult
from ..runtime.device import Device
from ..runtime.queue import Queue
from ..runtime.selectors import DeviceSpec, select_device, select_devices
from . import Resolved
from .transfers import Transfer, policy_for


def run_gemm(queue: Queue, variant: Variant, params: Mapping, a, b, *,
             poison: float | None = None, out=None) -> GemmResult:
    """C = A @ B with checked operands and resolved parameters: the plan's kernels in
    order on the in-order queue, kernel time the sum of their events.

    Numpy operands give a numpy C; when an operand is a ``pyopencl.array.Array`` C is a
    new device array on its queue (no host round trip). ``out`` (an array of either
    kind) receives C instead. ``poison`` fills C on the device before the kernels run, so
    elements they never write show up (tests use NaN); a plan whose kernels add into C
    gets zeros instead.
    """
    start = time.perf_counter()
    m, k = a.shape
    n = b.shape[1]
    op_a, op_b = as_operand(a), as_operand(b)
    plan, sources, options = launch_plan(variant, tuple(params.items()), m, n, k, a.dtype,
                                         op_a.colmajor, op_b.colmajor)
    kernels = [queue.kernel(source, step.kernel, opts)
               for step, source, opts in zip(plan.steps, sources, options)]

    c = out if out is not None else new_result(queue, (m, n), a.dtype, a, b)
    transfer = Transfer(queue, policy_for(queue.device))
    c_arg, waits = transfer.output(c, 0 if plan.zero_c else poison)
    arguments = {"A": transfer.input(op_a.data), "B": transfer.input(op_b.data), "C": c_arg}
    for index, elements in enumerate(plan.workspace):
        arguments[f"W{index}"] = transfer.workspace(elements * a.dtype.itemsize)
    if plan.counters:
        arguments["Z0"] = queue.zeroed_counters(plan.counters)
    i32 = np.int32
    arguments.update(M=i32(m), N=i32(n), K=i32(k), lda=i32(op_a.ld), ldb=i32(op_b.ld),
                     ldc=i32(n))
    launched = time.perf_counter()
    events = []
    for step, kernel in zip(plan.steps, kernels):
        args = [arguments[x] if isinstance(x, str) else i32(x) for x in step.args]
        events.append(queue.submit(kernel, step.ndrange, *args, wait_for=waits))
        waits = None
    if queue.profiling:
        # no wait of our own first: the queue is in order, so bringing C back waits for
        # the kernels, and a driver's every blocking wait costs a wake-up (PoCL: ~0.1 ms)
        transfer.finish(events[-1])
        step_ms = tuple(e.kernel_ms for e in events)
        kernel_ms = sum(step_ms)
    else:  # the kernels' time is the host's, taken before C comes back
        events[-1].wait()
        kernel_ms = (time.perf_counter() - launched) * 1e3
        step_ms = ()
        transfer.finish(events[-1])
    wall_ms = (time.perf_counter() - start) * 1e3
    return GemmResult(c, queue.device, variant.name, dict(params), kernel_ms, wall_ms,
                      event=events[-1], step_ms=step_ms)


def new_result(queue: Queue, shape: tuple[int, int], dtype, a, b):
    """C for a call: on the device (from the queue's pool) when an operand is there, else
    a numpy array."""
    if is_device_array(a) or is_device_array(b):
        import pyopencl.array as cl_array

        return cl_array.empty(queue.cl_queue, shape, dtype, allocator=queue.allocator)
    return np.empty(shape, dtype=dtype)


def resident_queue(a, b) -> Queue | None:
    """The queue the operands' device arrays live on (the first one's), or None."""
    for x in (a, b):
        if is_device_array(x):
            return Queue.for_cl_queue(x.queue)
    return None


def queue_for(device: Device, a, b) -> Queue:
    """The device arrays' own queue when there are any (their context), else the device's."""
    return resident_queue(a, b) or Queue.for_device(device)


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
                shape: tuple[int, int, int], dtype: np.dtype, layout: str = "CC") -> Resolved:
        if dtype == np.float64 and not device.has_fp64:
            raise TypeError(f"{device.description} has no float64 support; use float32")
        if variant == "auto":
            if params:
                raise ParameterError("params need a named variant; variant='auto' picks its own")
            choice = choose(device, *shape, dtype.itemsize, layout=layout)
            return Resolved(device, choice.variant, choice.params, get_variant(choice.variant),
                            choice.source, choice.reason)
        impl = get_variant(variant)
        if not params:  # some families choose theirs by a model of the device and shape
            params = named_defaults(variant, device, *shape, dtype.itemsize, layout)
        # the type is part of the key: True == 1, but True is refused where 1 is not
        items = tuple((key, type(value), value) for key, value in (params or {}).items())
        try:
            hash(items)
        except TypeError:  # e.g. a list as a value: checked (and refused) without the memo
            checked = impl.check(dict(params), device, dtype.itemsize)
        else:
            checked = _checked(impl, items, device, dtype.itemsize)
        return Resolved(device, variant, checked, impl)

    def resident_device(self, a, b) -> Device | None:
        """The device the operands' arrays live on (the first device array's), or None."""
        queue = resident_queue(a, b)
        return queue.device if queue is not None else None

    def run(self, resolved: Resolved, a, b, *, poison: float | None = None, out=None,
            queue: Queue | None = None) -> GemmResult:
        """``queue``: another queue on the same device (the tuner's, to free programs)."""
        result = run_gemm(queue or queue_for(resolved.device, a, b), resolved.impl,
                          resolved.params, a, b, poison=poison, out=out)
        result.source, result.reason = resolved.source, resolved.reason
        return result


BACKEND = OpenCLBackend()
