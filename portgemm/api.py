"""The public GEMM entry points: ``matmul`` (an array), ``gemm`` (array plus timings) and
``variants`` (what can run where), each asking the backend registry."""

from __future__ import annotations

from typing import Any, Mapping

from .backends import DEFAULT_BACKEND, get_backend
from .operands import check_operands
from .result import GemmResult


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
    Raises ValueError for bad shapes or parameters beyond the device's limits,
    TypeError for unsupported dtypes, BuildError (with the build log) if compilation
    fails, BackendUnavailableError when a backend's extra is not installed.
    """
    chosen = get_backend(backend)
    a, b = check_operands(a, b)
    target = chosen.device(device)
    shape = (a.shape[0], b.shape[1], a.shape[1])
    resolved = chosen.resolve(target, variant, params, shape, a.dtype)
    return chosen.run(resolved, a, b, poison=poison)


def matmul(a, b, *, device: Any = None, variant: str = "auto",
           params: Mapping[str, Any] | None = None, backend: str = DEFAULT_BACKEND):
    """A new (M, N) array C = A @ B of the inputs' dtype; see :func:`gemm` for arguments."""
    return gemm(a, b, device=device, variant=variant, params=params, backend=backend).c


def variants(device: Any = None, backend: str = DEFAULT_BACKEND) -> list[str]:
    """Names of the variants usable on a device (all of the backend's if device is None)."""
    chosen = get_backend(backend)
    return chosen.variants(None if device is None else chosen.device(device))
