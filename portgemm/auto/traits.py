"""What the cost models need to know of a device that the OpenCL queries leave implicit:
its SIMD (warp, wavefront, vector) width, how many work-items a compute unit holds at
once, and how many it executes at the same time.

NVIDIA GPUs report their compute capability (cl_nv_device_attribute_query), which gives
both counts (CUDA programming guide); AMD GPUs their wavefront width; a CPU runtime runs
one work-group per compute unit at a time, its work-items along the SIMD lanes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..caches import memoize
from ..runtime.device import Device

# NVIDIA, per compute capability: resident threads and FP32 cores per SM.
NVIDIA_RESIDENT = {(7, 0): 2048, (7, 5): 1024, (8, 0): 2048, (8, 6): 1536, (8, 7): 2048,
                   (8, 9): 1536, (9, 0): 2048, (10, 0): 2048, (12, 0): 1536}
NVIDIA_CORES = {(7, 0): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128,
                (9, 0): 128, (10, 0): 128, (12, 0): 128}


@dataclass(frozen=True)
class Traits:
    compute_units: int
    simd: int          # work-items one instruction serves: warp, wavefront, SIMD lanes
    resident: int      # work-items one compute unit holds at once
    lanes: int         # work-items one compute unit executes at the same time
    max_group: int     # the largest work-group, capped at 1024

    @property
    def slots(self) -> int:
        """Work-items the whole device holds at once."""
        return self.compute_units * self.resident


@memoize(maxsize=64)
def traits(device: Device) -> Traits:
    units = max(1, device.compute_units)
    max_group = max(1, min(device.max_work_group_size, 1024))
    capability = nvidia_capability(device)
    if capability is not None:
        return Traits(units, 32, NVIDIA_RESIDENT.get(capability, 2048),
                      NVIDIA_CORES.get(capability, 128), max_group)
    if device.type == "gpu":
        simd = _attribute(device, "wavefront_width_amd") or 32
        return Traits(units, simd, 2 * max_group, 2 * simd, max_group)
    simd = max(1, device.native_vector_width)
    return Traits(units, simd, max_group, simd, max_group)


def nvidia_capability(device: Device) -> tuple[int, int] | None:
    major = _attribute(device, "compute_capability_major_nv")
    minor = _attribute(device, "compute_capability_minor_nv")
    return None if major is None else (int(major), int(minor or 0))


def _attribute(device: Device, name: str):
    try:
        return getattr(device.handle, name)
    except Exception:  # not this vendor's extension, or no handle (a described device)
        return None
