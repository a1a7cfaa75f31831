"""What the cost models need to know of a device that the OpenCL queries leave implicit:
its SIMD (warp, wavefront, vector) width, how many work-items a compute unit holds at
once, and how many it executes at the same time.

NVIDIA GPUs report their compute capability (cl_nv_device_attribute_query), which gives
both counts (CUDA programming guide); AMD GPUs their wavefront width; a CPU runtime runs
one work-group per compute unit at a time, its work-items along the SIMD lanes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..caches import memoize
from ..runtime.device import Device

# NVIDIA, per compute capability: resident threads and FP32 cores per SM.
NVIDIA_RESIDENT = {(7, 0): 2048, (7, 5): 1024, (8, 0): 2048, (8, 6): 1536, (8, 7): 2048,
                   (8, 9): 1536, (9, 0): 2048, (10, 0): 2048, (12, 0): 1536}
NVIDIA_CORES = {(7, 0): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128,
                (9, 0): 128, (10, 0): 128, (12, 0): 128}
# shared memory per SM in bytes (the most a kernel can be given), and registers per SM
NVIDIA_LOCAL = {(7, 0): 96 << 10, (7, 5): 64 << 10, (8, 0): 164 << 10, (8, 6): 100 << 10,
                (8, 7): 164 << 10, (8, 9): 100 << 10, (9, 0): 228 << 10, (10, 0): 228 << 10,
                (12, 0): 100 << 10}
NVIDIA_REGISTERS = 65536


@dataclass(frozen=True)
class Traits:
    compute_units: int
    simd: int          # work-items one instruction serves: warp, wavefront, SIMD lanes
    resident: int      # work-items one compute unit holds at once
    lanes: int         # work-items one compute unit executes at the same time
    max_group: int     # the largest work-group, capped at 1024
    registers: int = 0     # 32-bit registers of one compute unit (0: unknown)
    local_per_unit: int = 0  # local memory one compute unit shares among its groups
    cache: int = 0   # bytes of the cache a compute unit reads through (a CPU: the L2)

    @property
    def slots(self) -> int:
        """Work-items the whole device holds at once."""
        return self.compute_units * self.resident

    def groups_per_unit(self, threads: int, registers_each: int, local_bytes: int) -> int:
        """Work-groups of ``threads`` work-items one compute unit holds at once, as far as
        work-item slots, registers (where known) and local memory allow; at least 1."""
        fits = [self.resident // max(1, threads)]
        if self.registers:
            fits.append(self.registers // max(1, threads * registers_each))
        if local_bytes and self.local_per_unit:
            fits.append(self.local_per_unit // local_bytes)
        return max(1, min(fits))

    def items_per_unit(self, registers_each: int) -> int:
        """Work-items one compute unit holds when each needs ``registers_each`` registers."""
        if not self.registers:
            return self.resident
        return max(self.simd, min(self.resident, self.registers // max(1, registers_each)))


def traits(device: Device) -> Traits:
    # a Device's equality leaves out its handle, where the compute capability comes from
    return _traits(device, device.compute_capability)


@memoize(maxsize=64)
def _traits(device: Device, capability: tuple[int, int] | None) -> Traits:
    units = max(1, device.compute_units)
    max_group = max(1, min(device.max_work_group_size, 1024))
    if capability is not None:
        return Traits(units, 32, NVIDIA_RESIDENT.get(capability, 2048),
                      NVIDIA_CORES.get(capability, 128), max_group, NVIDIA_REGISTERS,
                      NVIDIA_LOCAL.get(capability, device.local_mem_size))
    if device.type == "gpu":
        simd = _attribute(device, "wavefront_width_amd") or 32
        return Traits(units, simd, 2 * max_group, 2 * simd, max_group, 0, device.local_mem_size)
    simd = max(1, device.native_vector_width)
    return Traits(units, simd, max_group, simd, max_group, 0, device.local_mem_size,
                  host_l2() or device.global_mem_cache_size)


def host_l2(root: str = "/sys/devices/system/cpu/cpu0/cache") -> int:
    """Bytes of the first core's L2 as Linux reports it, 0 where it cannot be told. A CPU
    device's own report may be another level: Intel's runtime gives the L2, PoCL the L3
    (480 MB on a Xeon of 2 cores here)."""
    for index in sorted(Path(root).glob("index*")):
        try:
            if (index / "level").read_text().strip() == "2":
                size = (index / "size").read_text().strip().upper()
                return int(size.rstrip("KMG")) << {"K": 10, "M": 20, "G": 30}.get(size[-1], 0)
        except (OSError, ValueError):
            continue
    return 0


def cpu_maker(device: Device) -> str:
    """'Intel' or 'AMD' as a CPU device's name (the CPU's brand string, after a driver's
    prefix such as PoCL's) says, else ''."""
    words = device.name.replace("-", " ").split()
    return next((maker for maker in ("Intel", "AMD")
                 if any(word.startswith(maker) for word in words)), "")


def _attribute(device: Device, name: str):
    try:
        return getattr(device.handle, name)
    except Exception:  # not this vendor's extension, or no handle (a described device)
        return None
