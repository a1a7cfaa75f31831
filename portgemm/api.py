"""The public GEMM entry points: ``matmul`` (an array) and ``gemm`` (array plus timings)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from .backends.opencl import GemmResult, run_gemm
from .errors import ParameterError
from .operands import check_operands
from .runtime.device import Device
from .runtime.queue import Queue
from .runtime.selectors import DeviceSpec, select_device
from .tune.choice import choose
from .variants import get_variant, variant_names

BACKENDS = ("opencl", "host", "dpex")


def gemm(a, b, *, device: DeviceSpec = None, variant: str = "auto",
         params: Mapping[str, Any] | None = None, backend: str = "opencl",
         poison: float | None = None) -> GemmResult:
    """C = A @ B, returned with the kernel and wall times and what ran.

    backend: "opencl" (default), "host" (serial references and the threaded CPU GEMM;
      ``device`` must be None or "host") or "dpex" (numba-dpex kernels; ``device`` is a
      dpctl filter string, default "opencl:cpu"; needs ``pip install "portgemm[dpex]"``).
    device: for OpenCL, a selector spec (see :func:`portgemm.select_device`).
    variant: a registered name (``portgemm.variants()``) or "auto" (tuning database,
      else a heuristic). params: that variant's parameters; missing ones take defaults.
    poison: fill C with this value on the device before the kernel (tests use NaN).
    Raises ValueError for bad shapes or parameters beyond the device's limits,
    TypeError for unsupported dtypes, BuildError (with the build log) if compilation
    fails, BackendUnavailableError when a backend's extra is not installed.
    """
    if backend == "host":
        from .backends.host import run_host

        if device not in (None, "host"):
            raise ParameterError(f"the host backend runs on the host CPU; got device={device!r}")
        return run_host(a, b, variant=variant, params=params, poison=poison)
    if backend == "dpex":
        from .backends.dpex import DEFAULT_DEVICE, run_dpex

        return run_dpex(a, b, device=device or DEFAULT_DEVICE,
                        variant="tiled" if variant == "auto" else variant,
                        params=params, poison=poison)
    if backend != "opencl":
        raise ParameterError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")

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
    # the type is part of the key: True == 1, but True is refused where 1 is not
    items = tuple((key, type(value), value) for key, value in (params or {}).items())
    try:
        hash(items)
    except TypeError:  # e.g. a list as a value: checked (and refused) without the memo
        resolved = impl.check(dict(params), chosen, a.itemsize)
    else:
        resolved = _checked(impl, items, chosen, a.itemsize)
    return run_gemm(Queue.for_device(chosen), impl, resolved, a, b, poison=poison)


@lru_cache(maxsize=256)
def _checked(impl, params: tuple, device: Device, itemsize: int) -> dict:
    """Variant.check, remembered: a warm call repeats the same parameters."""
    return impl.check({key: value for key, _, value in params}, device, itemsize)


def matmul(a, b, *, device: DeviceSpec = None, variant: str = "auto",
           params: Mapping[str, Any] | None = None, backend: str = "opencl") -> np.ndarray:
    """A new (M, N) array C = A @ B of the inputs' dtype; see :func:`gemm` for arguments."""
    return gemm(a, b, device=device, variant=variant, params=params, backend=backend).c


def variants(device: DeviceSpec | Device = None, backend: str = "opencl") -> list[str]:
    """Names of the variants usable on a device (all registered ones if device is None),
    or of the host or dpex backend's variants."""
    if backend == "host":
        from .backends.host import HOST_VARIANTS

        return list(HOST_VARIANTS)
    if backend == "dpex":
        from .backends.dpex import VARIANTS

        return list(VARIANTS)
    return variant_names(None if device is None else select_device(device))
