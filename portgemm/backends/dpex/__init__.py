"""numba-dpex backend: the GEMM variants as SYCL kernels written in Python (optional extra).

numba-dpex compiles a Python function into a SPIR-V kernel that a SYCL runtime (through
dpctl) runs on an Intel CPU or GPU, via OpenCL or Level Zero. This backend holds the same
variants as the OpenCL backend -- ``naive``, ``tiled``, ``inreg`` and ``local`` -- with the
same parameters, defaults and checks (taken from :mod:`portgemm.families`), launched over
portgemm's :class:`~portgemm.runtime.ndrange.NDRange` objects.

    portgemm.gemm(a, b, backend="dpex", device="opencl:cpu", variant="tiled")

Modules: :mod:`.stack` imports the numba-dpex stack (``pip install "portgemm[dpex]"``),
:mod:`.devices` finds and describes SYCL devices, :mod:`.sources` writes each kernel's
Python source, :mod:`.run` compiles and launches it.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .. import Resolved
from ...operands import host_arrays_only
from ...runtime.device import Device
from .devices import DEFAULT_DEVICE, describe, get_sycl_devices, sycl_device, to_dpex_range
from .run import DpexResult, device_for, launch, resolve_dpex, run_dpex
from .sources import VARIANTS, get_dpex_variant, python_kernel_source
from .stack import INSTALL_COMMAND, dpex_available, load_stack


class DpexBackend:
    name = "dpex"
    kernel_time = "SYCL event time (dpex)"
    result_type = DpexResult  # of every call, an empty product's too (api._empty_product)

    def device(self, spec: Any = None) -> Device:
        return device_for(spec)

    def devices(self, spec: str | None = None) -> list[Device]:
        if spec is None:  # every one, when the stack is here at all
            return get_sycl_devices() if dpex_available() else []
        return [device_for(spec)]

    def label(self, device: Device) -> str:
        return f"dpex:{device.filter_string}"

    def variants(self, device: Any = None) -> list[str]:
        return list(VARIANTS)

    def variant(self, name: str):
        return get_dpex_variant(name)

    def resolve(self, device: Device, variant: str, params: Mapping[str, Any] | None,
                shape: tuple[int, int, int], dtype: np.dtype, layout: str = "CC") -> Resolved:
        return resolve_dpex(device, variant, params, dtype)

    def resident_device(self, a, b) -> None:
        host_arrays_only(a, b, self.name)
        return None

    def run(self, resolved: Resolved, a, b, *, poison: float | None = None,
            out=None, wait: bool = True) -> DpexResult:
        return launch(resolved, a, b, poison=poison, out=out)


BACKEND = DpexBackend()

__all__ = ["BACKEND", "DEFAULT_DEVICE", "DpexResult", "INSTALL_COMMAND", "VARIANTS",
           "describe", "device_for", "dpex_available", "get_sycl_devices", "load_stack",
           "python_kernel_source", "run_dpex", "sycl_device", "to_dpex_range"]
