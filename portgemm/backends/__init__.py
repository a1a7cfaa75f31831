"""Backends: one small protocol and one registry.

A backend runs GEMM variants on its devices: ``opencl`` (the kernels of ``kernels_cl/``
through pyopencl, the default), ``host`` (serial references and the OpenMP-style threaded
GEMM on the host CPU) and ``dpex`` (numba-dpex kernels, an optional extra). ``gemm``, the
variant listing, the bench and the tuner reach a backend through :func:`get_backend` and
nothing else, so adding one is a module with a :class:`Backend` object named ``BACKEND``
and one line in :data:`REGISTRY`.

A call goes ``device = b.device(spec)`` -> ``resolved = b.resolve(device, variant,
params, shape, dtype, layout)`` (``"auto"`` included; parameters checked here,
once) ->
``b.run(resolved, a, b, poison=...)`` -> :class:`~portgemm.result.GemmResult`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from ..errors import ParameterError
from ..result import GemmResult

# name -> module holding its BACKEND; imported on first use (host loads numba, dpex its
# whole SYCL stack: neither should slow down ``import portgemm``).
REGISTRY: dict[str, str] = {
    "opencl": "portgemm.backends.opencl",
    "host": "portgemm.backends.host",
    "dpex": "portgemm.backends.dpex",
}
DEFAULT_BACKEND = "opencl"


@dataclass(frozen=True)
class Resolved:
    """A call's variant and checked parameters on a device, and where they came from."""

    device: Any
    variant: str
    params: Mapping[str, Any]
    impl: Any = field(default=None, repr=False)  # the backend's object for the variant
    source: str = "explicit"  # see portgemm.result.SOURCES
    reason: str = ""


class Backend(Protocol):
    """What every backend provides. One may also provide ``run_stack(resolved, a, b, *,
    out=None, poison=None, wait=True)``: C[i] = A[i] @ B[i] over stacks (1 or S matrices
    a side; numpy, or the backend's device arrays) in one launch, or None where it cannot
    (then each product runs alone); and ``result_type``, the GemmResult subclass its calls
    return, which an empty product (no call) then returns too."""

    name: str
    kernel_time: str  # what a result's kernel_ms is here, in the bench's footer

    def device(self, spec: Any = None) -> Any:
        """This backend's device for a spec (None: its default); its own devices pass."""

    def devices(self, spec: str | None = None) -> list:
        """Devices a bench ``--device`` item names ('' its default; None: all of them)."""

    def label(self, device: Any) -> str:
        """How the bench's device column names ``device``."""

    def variants(self, device: Any = None) -> list[str]:
        """Variant names usable on ``device`` (every one when None)."""

    def variant(self, name: str) -> Any:
        """The variant object (``parameter_names``, ``defaults``, ...) of a name."""

    def resolve(self, device: Any, variant: str, params: Mapping[str, Any] | None,
                shape: tuple[int, int, int], dtype: np.dtype, layout: str = "CC") -> Resolved:
        """Variant ("auto" included) and parameters, checked against the device;
        ``layout``: A's order and B's ("CC", "CF", "FC", "FF"), which a model may weigh."""

    def resident_device(self, a, b) -> Any:
        """The device the operands already live on (device arrays), else None; TypeError
        for arrays this backend cannot read."""

    def run(self, resolved: Resolved, a, b, *, poison: float | None = None,
            out: Any = None, wait: bool = True) -> GemmResult:
        """C = A @ B as resolved; ``poison`` fills C first where the backend can; ``out``
        (checked already) receives C. ``wait=False`` lets a C in device memory come back
        before its kernels finish (its queue orders what follows; the times are then
        NaN); a C on the host is always finished."""


_loaded: dict[str, Backend] = {}


def get_backend(name: str) -> Backend:
    """The backend registered under ``name``; ParameterError naming the others if none."""
    backend = _loaded.get(name)
    if backend is None:
        if not isinstance(name, str) or name not in REGISTRY:
            raise ParameterError(f"unknown backend {name!r}; backends: {', '.join(REGISTRY)}")
        backend = _loaded[name] = importlib.import_module(REGISTRY[name]).BACKEND
    return backend


def backend_names() -> Sequence[str]:
    return tuple(REGISTRY)
