"""Which kind of OpenCL compiler a device has, as far as GEMM kernels care.

* ``work-item-vectorising``: CPU runtimes that turn a work-group into SIMD code across
  neighbouring work-items (Intel's): scalar kernels with many work-items a group suit
  them (xgemm's CPU preset).
* ``code-vectorising``: CPU runtimes that vectorise the code as written and loop over
  the work-items (PoCL, on this Xeon: 2 GFLOPS with the scalar kernels, 35-45 with
  explicit vectors): the vec family, vectors as wide as the device's native SIMD.
* ``gpu``: warps or wavefronts in hardware (xgemm's GPU presets).
"""

from __future__ import annotations

from ..runtime.device import Device

POCL_PLATFORM = "portable computing language"


def compiler_kind(device: Device) -> str:
    if device.type == "gpu":
        return "gpu"
    if POCL_PLATFORM in device.platform.lower():
        return "code-vectorising"
    return "work-item-vectorising"
