"""The public GEMM entry points: ``matmul`` (an array), ``gemm`` (array plus timings) and
``variants`` (what can run where), each asking the backend registry."""

from __future__ import annotations

import time
from typing import Any, Mapping

import numpy as np

from .backends import DEFAULT_BACKEND, Backend, Resolved, get_backend
from .operands import check_device_memory, check_operands, is_empty_product
from .result import GemmResult

EMPTY_PRODUCT_REASON = "no kernel ran: M, N or K is 0 (C is empty or all zeros, as in numpy)"


def gemm(a, b, *, device: Any = None, variant: str = "auto",
         params: Mapping[str, Any] | None = None, backend: str = DEFAULT_BACKEND,
         poison: float | None = None) -> GemmResult:
    """C = A @ B, returned with the kernel and wall times and what ran.

    backend: "opencl" (default), "host" (serial references and the threaded CPU GEMM;
      ``device`` must be None or "host") or "dpex" (numba-dpex kernels; ``device`` is a
      dpctl filter string, default "opencl:cpu"; needs ``pip install "portgemm[dpex]"``).
    device: for OpenCL, a selector spec (see :func:`portgemm.select_device`).
    variant: a registered name (``portgemm.variants()``) or "auto" (tuning database,
      else a choice from the device's properties). params: that variant's parameters;
      missing ones take defaults. The result's ``source`` says where they came from.
    poison: fill C with this value on the device before the kernel (tests use NaN).
    A dimension of 0 follows numpy: ``(M, 0) @ (0, N)`` gives an M x N zero matrix, M = 0
    or N = 0 an empty one; the variant and parameters are still checked, but no kernel
    runs (``kernel_ms`` is 0).
    Raises ValueError for bad shapes, parameters beyond the device's limits or operands
    larger than its memory (ParameterError naming the limit), TypeError for unsupported
    dtypes, BuildError (with the build log) if compilation fails,
    BackendUnavailableError when a backend's extra is not installed.
    """
    start = time.perf_counter()
    chosen = get_backend(backend)
    a, b = check_operands(a, b)
    target = chosen.device(device)
    check_device_memory(target, a, b)
    shape = (a.shape[0], b.shape[1], a.shape[1])
    if is_empty_product(a, b):
        # Resolved on a 1 x 1 x 1 stand-in: "auto"'s shape classes need a size, and the
        # parameters are checked exactly as for any other call.
        resolved = chosen.resolve(target, variant, params, (1, 1, 1), a.dtype)
        return _empty_product(chosen, resolved, shape, a.dtype, start)
    resolved = chosen.resolve(target, variant, params, shape, a.dtype)
    return chosen.run(resolved, a, b, poison=poison)


def _empty_product(backend: Backend, resolved: Resolved, shape: tuple[int, int, int],
                   dtype: np.dtype, start: float) -> GemmResult:
    """numpy's answer for a product with a dimension of 0, without running a kernel."""
    m, n, _ = shape
    c = np.zeros((m, n), dtype=dtype)
    wall_ms = (time.perf_counter() - start) * 1e3
    return GemmResult(c, resolved.device, resolved.variant, dict(resolved.params), 0.0,
                      wall_ms, backend=backend.name, source=resolved.source,
                      reason=EMPTY_PRODUCT_REASON)


def matmul(a, b, *, device: Any = None, variant: str = "auto",
           params: Mapping[str, Any] | None = None, backend: str = DEFAULT_BACKEND):
    """A new (M, N) array C = A @ B of the inputs' dtype; see :func:`gemm` for arguments."""
    return gemm(a, b, device=device, variant=variant, params=params, backend=backend).c


def variants(device: Any = None, backend: str = DEFAULT_BACKEND) -> list[str]:
    """Names of the variants usable on a device (all of the backend's if device is None)."""
    chosen = get_backend(backend)
    return chosen.variants(None if device is None else chosen.device(device))
