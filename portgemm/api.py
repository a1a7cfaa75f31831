"""The public GEMM entry points: ``matmul`` (an array) and ``gemm`` (array plus timings)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .backends.opencl import GemmResult, run_gemm
from .operands import check_operands
from .runtime.device import Device
from .runtime.queue import Queue
from .runtime.selectors import DeviceSpec, select_device
from .tune.choice import choose
from .variants import get_variant, variant_names


def gemm(a, b, *, device: DeviceSpec = None, variant: str = "auto",
         params: Mapping[str, Any] | None = None, poison: float | None = None) -> GemmResult:
    """C = A @ B on an OpenCL device, returned with the kernel and wall times.

    device: a selector spec (see :func:`portgemm.select_device`).
    variant: a registered name (``portgemm.variants()``) or "auto" (tuning database,
      else a heuristic). params: that variant's parameters; missing ones take defaults.
    Raises ValueError for bad shapes or parameters beyond the device's limits,
    TypeError for unsupported dtypes, BuildError (with the build log) if compilation fails.
    """
    a, b = check_operands(a, b)
    chosen = select_device(device)
    if a.dtype == np.float64 and not chosen.has_fp64:
        raise TypeError(f"{chosen.description} has no float64 support; use float32")
    if variant == "auto":
        if params:
            raise ValueError("params need a named variant; variant='auto' picks its own")
        choice = choose(chosen, a.shape[0], b.shape[1], a.shape[1], a.itemsize)
        variant, params = choice.variant, choice.params
    impl = get_variant(variant)
    resolved = impl.check(params, chosen, a.itemsize)
    return run_gemm(Queue.for_device(chosen), impl, resolved, a, b, poison=poison)


def matmul(a, b, *, device: DeviceSpec = None, variant: str = "auto",
           params: Mapping[str, Any] | None = None) -> np.ndarray:
    """A new (M, N) array C = A @ B of the inputs' dtype; see :func:`gemm` for arguments."""
    return gemm(a, b, device=device, variant=variant, params=params).c


def variants(device: DeviceSpec | Device = None) -> list[str]:
    """Names of the variants usable on a device (all registered ones if device is None)."""
    return variant_names(None if device is None else select_device(device))
