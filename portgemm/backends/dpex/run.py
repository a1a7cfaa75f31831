"""Running a GEMM variant as a numba-dpex kernel on a SYCL device."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ...caches import memoize
from ...memory import copy_into
from ...result import PER_PROCESS, GemmResult
from ...runtime.device import Device
from .. import Resolved
from .devices import DEFAULT_DEVICE, describe, queue_for, sycl_device, to_dpex_range
from .sources import get_dpex_variant, python_kernel_source
from .stack import load_stack


@memoize
def _kernel(source: str) -> Any:
    """The numba-dpex kernel dispatcher for one generated source (compiled on its first
    launch, once per dtype, then kept for the process)."""
    stack = load_stack()
    namespace = {"group_barrier": stack.kapi.group_barrier}
    code = compile(source, "<portgemm dpex kernel>", "exec")
    exec(code, namespace)  # noqa: S102 -- our own generated text, no user input
    function = next(v for k, v in namespace.items() if k.startswith("gemm_"))
    return stack.dpex.kernel(function)


@dataclass
class DpexResult(GemmResult):
    """A :class:`GemmResult` from the dpex backend, saying how ``kernel_ms`` was taken.

    timing: "event" (SYCL event profiling, device start to end) or "wall" (host time of
    submitting the kernel and waiting for it, when the device gives no profiling; that
    includes the JIT compilation on a first call). notes: why, when not "event".
    """

    timing: str = "event"
    notes: tuple[str, ...] = ()
    sycl_event: Any = field(default=None, repr=False, metadata=PER_PROCESS)


def device_for(spec: Any = None) -> Device:
    """portgemm's description of the SYCL device a spec names (its ``handle`` is the
    dpctl.SyclDevice): a dpctl filter string ("opencl:cpu", "level_zero:gpu"), a
    dpctl.SyclDevice, or a Device this backend described."""
    return describe(sycl_device(DEFAULT_DEVICE if spec is None or spec == "" else spec))


def resolve_dpex(device: Device, variant: str, params: Mapping[str, Any] | None,
                 dtype: np.dtype) -> Resolved:
    """The variant ("auto": tiled) and its parameters, checked against the device."""
    impl = get_dpex_variant("tiled" if variant == "auto" else variant)
    resolved = impl.resolve(params)
    if dtype == np.float64 and not device.has_fp64:
        raise TypeError(f"{device.description} has no float64 support; use float32")
    source, reason = ("model", "the dpex backend's default, tiled") if variant == "auto" else (
        "explicit", "")
    return Resolved(device, impl.name, impl.check(resolved, device, dtype.itemsize), impl,
                    source, reason)


def launch(resolved: Resolved, a: np.ndarray, b: np.ndarray, *,
           poison: float | None = None, out=None) -> DpexResult:
    """Run a resolved call: upload, kernel (event-timed where the queue allows), download
    (into ``out`` when given: checked already, C-contiguous)."""
    stack = load_stack()
    start = time.perf_counter()
    impl, params, info = resolved.impl, resolved.params, resolved.device
    m, k = a.shape
    n = b.shape[1]
    plan = impl.plan(m, n, k, params, a.itemsize)
    kernel = _kernel(python_kernel_source(impl.name, params))
    queue, profiling, lock = queue_for(info.handle)
    dpt = stack.dpt
    # Calls from several threads take turns on the device's one queue, as the OpenCL
    # backend's do (Queue.lock): unlocked, a thread's upload waited on the queue holding
    # the GIL behind another call's numba-dpex keep-alive host task, which needs the GIL
    # (a permanent hang).
    with lock:
        a_dev = dpt.asarray(np.ascontiguousarray(a), sycl_queue=queue)
        b_dev = dpt.asarray(np.ascontiguousarray(b), sycl_queue=queue)
        c_dev = (dpt.empty((m, n), dtype=a.dtype, sycl_queue=queue) if poison is None else
                 dpt.full((m, n), poison, dtype=a.dtype, sycl_queue=queue))
        args = [m, n, k, a_dev, b_dev, c_dev]
        if impl.name == "local":
            tile_m = params["wg_y"] * params["tile_y"]
            tile_n = params["wg_x"] * params["tile_x"]
            local_accessor = stack.kapi.LocalAccessor
            args += [local_accessor((tile_m, params["tile_k"]), dtype=a.dtype),
                     local_accessor((params["tile_k"], tile_n), dtype=a.dtype)]
        queue.wait()  # uploads and poison done: the launch below is the kernel alone

        started = time.perf_counter()
        host_event, event = stack.dpex.call_kernel_async(kernel, to_dpex_range(plan.ndrange),
                                                         (), *args)
        event.wait()
        host_event.wait()
        launch_ms = (time.perf_counter() - started) * 1e3
        kernel_ms, timing, notes = _kernel_time(event, profiling, launch_ms)

        c = dpt.asnumpy(c_dev)
    if out is not None:  # numpy's or a pyopencl array: inside wall_ms, as documented
        c = copy_into(out, c, wait=True)
    wall_ms = (time.perf_counter() - start) * 1e3
    return DpexResult(c, info, impl.name, dict(params), kernel_ms, wall_ms, backend="dpex",
                      source=resolved.source, reason=resolved.reason, timing=timing,
                      notes=notes, sycl_event=event)


def run_dpex(a, b, *, device: Any = DEFAULT_DEVICE, variant: str = "tiled",
             params: Mapping[str, Any] | None = None,
             poison: float | None = None) -> DpexResult:
    """C = A @ B with a numba-dpex kernel on a SYCL device; C and its times: the same as
    ``portgemm.gemm(a, b, backend="dpex", ...)`` (empty products included).

    device: see :func:`device_for`. variant: "naive", "tiled", "inreg" or "local";
    params: its parameters (those of :mod:`portgemm.families`), missing ones take
    defaults. poison: a value C is filled with on the device before the kernel runs
    (tests use NaN so unwritten elements show).
    Raises BackendUnavailableError (numba-dpex missing: names the install command),
    DeviceNotFoundError, ValueError for bad shapes (ParameterError for parameters and
    limits), TypeError for dtypes (float64 on a device without fp64 included).
    """
    from ...api import gemm

    return gemm(a, b, device=device, variant=variant, params=params, backend="dpex",
                poison=poison)


def _kernel_time(event, profiling: bool, launch_ms: float) -> tuple[float, str, tuple]:
    if profiling:
        try:
            elapsed_ns = event.profiling_info_end - event.profiling_info_start
            return elapsed_ns * 1e-6, "event", ()
        except Exception as exc:  # the runtime refused profiling for this event
            why = f"SYCL event profiling failed ({exc})"
    else:
        why = "the device's queue does not support profiling"
    return launch_ms, "wall", (f"kernel_ms is the host's wall time of the launch: {why}",)
