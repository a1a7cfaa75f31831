"""SYCL devices for numba-dpex: lookup by filter string, portgemm's description of them,
their queues, and portgemm's ranges in numba-dpex's terms."""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

from ...caches import cache_dict
from ...errors import DeviceNotFoundError, ParameterError
from ...runtime.device import Device
from ...runtime.ndrange import NDRange, Range
from .stack import load_stack

DEFAULT_DEVICE = "opencl:cpu"
# Backends whose devices take SPIR-V, the only code numba-dpex produces.
SPIRV_BACKENDS = ("opencl", "level_zero")


def sycl_device(spec):
    """A dpctl.SyclDevice from a filter string ("opencl:cpu:0", "gpu"), a SyclDevice, or
    a portgemm Device from :func:`get_sycl_devices` / a result (by its filter string)."""
    stack = load_stack()
    if isinstance(spec, stack.dpctl.SyclDevice):
        if spec.parent_device is not None:  # no filter string names it (dpctl's TypeError)
            raise ParameterError(f"{spec.name} is a sub-device (create_sub_devices); the "
                                 f"dpex backend runs on root devices only: pass its "
                                 f"parent, .parent_device")
        return spec
    if isinstance(spec, Device):
        spec = spec.filter_string
    if not isinstance(spec, str):
        raise TypeError(f"device must be a dpctl filter string or a dpctl.SyclDevice, "
                        f"got {type(spec).__name__}")
    try:
        device = stack.dpctl.SyclDevice(spec)
    except Exception:  # dpctl's SyclDeviceCreationError derives from Exception only
        present = "\n  ".join(f"{d.filter_string}: {d.name}"
                              for d in stack.dpctl.get_devices()) or "(no SYCL device)"
        raise DeviceNotFoundError(f"no SYCL device matches {spec!r}; devices present:\n"
                                  f"  {present}") from None
    backend = device.backend.name
    if backend not in SPIRV_BACKENDS:
        raise ParameterError(f"{device.filter_string} ({device.name}) is a {backend} device; "
                             f"numba-dpex kernels are SPIR-V and run only on "
                             f"{' or '.join(SPIRV_BACKENDS)} devices")
    return device


def get_sycl_devices() -> list[Device]:
    """Every SYCL device numba-dpex can use here (OpenCL or Level Zero), described."""
    dpctl = load_stack().dpctl
    return [describe(d) for d in dpctl.get_devices() if d.backend.name in SPIRV_BACKENDS]


def describe(sycl_device) -> Device:
    """portgemm's :class:`Device` for a dpctl.SyclDevice (``handle`` holds the latter)."""
    backend = sycl_device.backend.name
    kind = sycl_device.device_type.name
    filter_string = sycl_device.filter_string
    platform = sycl_device.sycl_platform
    return Device(
        name=sycl_device.name.strip(),
        vendor=sycl_device.vendor.strip(),
        platform=platform.name.strip(),
        type=kind if kind in ("cpu", "gpu", "accelerator") else "custom",
        index=int(filter_string.rsplit(":", 1)[-1]),
        compute_units=sycl_device.max_compute_units,
        max_work_group_size=sycl_device.max_work_group_size,
        # SYCL reports these in SYCL order; portgemm's Device keeps OpenCL order.
        max_work_item_sizes=tuple(reversed(sycl_device.max_work_item_sizes3d)),
        local_mem_size=sycl_device.local_mem_size,
        global_mem_size=sycl_device.global_mem_size,
        max_mem_alloc_size=sycl_device.max_mem_alloc_size,
        has_fp64=bool(sycl_device.has_aspect_fp64),
        driver_version=sycl_device.driver_version.strip(),
        opencl_version="",
        platform_version=platform.version.strip(),
        global_mem_cache_size=int(getattr(sycl_device, "global_mem_cache_size", 0) or 0),
        backend=backend,
        handle=sycl_device,
    )


class DpexQueue(NamedTuple):
    """A device's shared in-order queue, whether it profiles, and the lock a call holds
    from its first command to C's return (:func:`~portgemm.backends.dpex.run.launch`)."""

    queue: Any
    profiling: bool
    lock: threading.Lock


_queues: dict[str, DpexQueue] = cache_dict("portgemm.backends.dpex.devices._queues")
_queues_lock = threading.Lock()  # two threads' first calls make one queue, one lock


def queue_for(sycl_device) -> DpexQueue:
    """The device's queue (with profiling where the device allows it) and its lock."""
    key = sycl_device.filter_string
    with _queues_lock:
        if key not in _queues:
            dpctl = load_stack().dpctl
            try:
                queue, profiling = dpctl.SyclQueue(
                    sycl_device, property=["enable_profiling", "in_order"]), True
            except Exception:  # a device without profiling: wall times instead
                queue, profiling = dpctl.SyclQueue(sycl_device, property="in_order"), False
            _queues[key] = DpexQueue(queue, profiling, threading.Lock())
        return _queues[key]


def to_dpex_range(space: Range | NDRange):
    """numba_dpex.Range / NdRange for a portgemm Range / NDRange (both SYCL order)."""
    dpex = load_stack().dpex
    if isinstance(space, NDRange):
        return dpex.NdRange(space.global_range.sizes, space.local_range.sizes)
    if isinstance(space, Range):
        return dpex.Range(*space.sizes)
    raise TypeError(f"expected a portgemm Range or NDRange, got {type(space).__name__}")
