"""Device: what portgemm knows about one OpenCL device, and the list of devices present."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..caches import cache_dict
from .drivers import check_listed, register_drivers

DEVICE_TYPES = ("cpu", "gpu", "accelerator", "custom")


@dataclass(frozen=True)
class Device:
    """One compute device. ``filter_string`` ("opencl:gpu:0") selects it again later."""

    name: str
    vendor: str
    platform: str
    type: str
    index: int  # position among the devices of the same backend and type
    compute_units: int
    max_work_group_size: int
    max_work_item_sizes: tuple[int, ...]
    local_mem_size: int
    global_mem_size: int
    max_mem_alloc_size: int
    has_fp64: bool
    driver_version: str
    opencl_version: str
    platform_version: str = ""
    backend: str = "opencl"
    # compared, not hashed: tens of names hashed afresh each time a device keys a cache
    extensions: tuple[str, ...] = field(default=(), hash=False)
    max_clock_mhz: int = 0          # 0 where the driver does not say
    native_vector_width: int = 1    # floats a SIMD instruction holds, as the driver reports
    global_mem_cache_size: int = 0  # bytes; 0 where the driver does not say
    handle: Any = field(default=None, compare=False, repr=False)  # pyopencl.Device

    @property
    def filter_string(self) -> str:
        return f"{self.backend}:{self.type}:{self.index}"

    @property
    def description(self) -> str:
        return f"{self.name} [{self.platform}] ({self.filter_string})"

    def __str__(self) -> str:
        return self.description

    @property
    def takes_ptx(self) -> bool:
        """Whether the OpenCL compiler is NVIDIA's, which accepts inline PTX (kernels
        then get PORTGEMM_PTX=1: see kernels_cl/common.h)."""
        return "nvidia" in self.vendor.lower()

    @cached_property
    def compute_capability(self) -> tuple[int, int] | None:
        """NVIDIA's compute capability (major, minor) from cl_nv_device_attribute_query;
        None on other devices and on described ones (no handle). Asked once: ``auto``
        keys its answers by it, and a failed query costs a raised driver error."""
        try:
            major = self.handle.compute_capability_major_nv
            minor = self.handle.compute_capability_minor_nv
        except Exception:  # not NVIDIA's extension, or no handle
            return None
        return int(major), int(minor or 0)


_enumerated: dict = cache_dict("portgemm.runtime.device.get_devices")


def get_devices(*, refresh: bool = False) -> list[Device]:
    """Every OpenCL device present, in platform order, each listed once.

    Drivers installed by pip or present but unregistered are made visible first
    (see :mod:`portgemm.runtime.drivers`).
    """
    devices = _enumerated.get("devices")
    if devices is None or refresh:
        report = register_drivers()
        import pyopencl as cl

        try:
            platforms = cl.get_platforms()
        except cl.LogicError:  # the loader found no platform at all
            platforms = []
        check_listed(report, [p.name for p in platforms])
        devices = _enumerated["devices"] = _enumerate(platforms)
    return list(devices)


def listed_devices() -> list[Device]:
    """The devices this process has listed (none before the first get_devices): listing
    them started every driver."""
    return list(_enumerated.get("devices", ()))


def _enumerate(platforms) -> list[Device]:
    import pyopencl as cl

    devices, seen, counts = [], set(), {}
    for platform in platforms:
        try:
            cl_devices = platform.get_devices()
        except cl.Error:
            continue
        # Two .icd files can name the same driver (a system copy and a bundled one): the
        # second platform is then the first again. Identical devices of one platform are
        # distinct hardware (two H200s), each listed.
        identity = (platform.name, platform.vendor, platform.version,
                    tuple((d.name, d.driver_version) for d in cl_devices))
        if identity in seen:
            continue
        seen.add(identity)
        for d in cl_devices:
            kind = _type_name(d.type)
            index = counts.get(kind, 0)
            counts[kind] = index + 1
            devices.append(_describe(d, platform, kind, index))
    return devices


def _type_name(cl_type: int) -> str:
    import pyopencl as cl

    if cl_type & cl.device_type.GPU:
        return "gpu"
    if cl_type & cl.device_type.CPU:
        return "cpu"
    if cl_type & cl.device_type.ACCELERATOR:
        return "accelerator"
    return "custom"


def _describe(d, platform, kind: str, index: int) -> Device:
    return Device(
        name=d.name.strip(),
        vendor=d.vendor.strip(),
        platform=platform.name.strip(),
        type=kind,
        index=index,
        compute_units=d.max_compute_units,
        max_work_group_size=d.max_work_group_size,
        max_work_item_sizes=tuple(d.max_work_item_sizes),
        local_mem_size=d.local_mem_size,
        global_mem_size=d.global_mem_size,
        max_mem_alloc_size=d.max_mem_alloc_size,
        has_fp64=bool(d.double_fp_config) or "cl_khr_fp64" in d.extensions,
        driver_version=d.driver_version.strip(),
        opencl_version=d.version.strip(),
        platform_version=platform.version.strip(),
        extensions=tuple(sorted(d.extensions.split())),
        max_clock_mhz=int(d.max_clock_frequency or 0),
        native_vector_width=int(d.native_vector_width_float or 1),
        global_mem_cache_size=int(d.global_mem_cache_size or 0),
        handle=d,
    )
