"""A rank's own product: the one place the distributed code multiplies.

Every partition calls :func:`local_product` and nothing else; device-resident operands
(pyopencl arrays, :mod:`.resident`) pass through it unchanged and C stays on the device. Each rank chooses its own backend, device, variant and parameters
(:class:`LocalOptions`); by default local rank i of a node takes GPU i when the node has
GPUs, else the backend's default device.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from ..api import gemm
from ..backends import DEFAULT_BACKEND, get_backend
from ..operands import is_device_array
from ..result import GemmResult
from ..runtime.selectors import DEVICE_ENV_VAR


@dataclass(frozen=True)
class LocalOptions:
    """How one rank computes its local products.

    device: the backend's device spec. A string may hold ``{local_rank}`` (and
      ``{rank}``), e.g. ``"gpu:{local_rank}"``. None: GPU ``local_rank`` (modulo the GPUs
      present) when the node has GPUs, else the backend's default (``$PORTGEMM_DEVICE``
      when set).
    """

    backend: str = DEFAULT_BACKEND
    device: Any = None
    variant: str = "auto"
    params: Mapping[str, Any] | None = None


# What a caller may pass as ``local=``: options, a dict of their fields, or a function
# (rank, local_rank) -> options, so one SPMD program can give each rank its own.
LocalSpec = Union[None, LocalOptions, Mapping[str, Any],
                  Callable[[int, int], LocalOptions]]


@dataclass
class LocalSetup:
    """Options settled on one rank: the backend object and the device it runs on."""

    options: LocalOptions
    device: Any
    label: str
    last: GemmResult | None = field(default=None, repr=False)  # the latest local product
    products: int = 0


def as_options(spec: LocalSpec, rank: int, local_rank: int) -> LocalOptions:
    if spec is None:
        return LocalOptions()
    if isinstance(spec, LocalOptions):
        return spec
    if isinstance(spec, Mapping):
        return LocalOptions(**spec)
    if callable(spec):
        return as_options(spec(rank, local_rank), rank, local_rank)
    raise TypeError(f"local= takes LocalOptions, a dict or a function (rank, local_rank) "
                    f"-> LocalOptions; got {type(spec).__name__}")


def set_up(spec: LocalSpec, rank: int, local_rank: int) -> LocalSetup:
    """Resolve this rank's backend, device and variant name; raise what is wrong (the
    caller turns it into an error every rank agrees on)."""
    options = as_options(spec, rank, local_rank)
    backend = get_backend(options.backend)
    device = backend.device(choose_device(options, backend, rank, local_rank))
    if options.variant != "auto":
        backend.variant(options.variant)  # ParameterError for an unknown name, here
    return LocalSetup(options, device, backend.label(device))


def choose_device(options: LocalOptions, backend: Any, rank: int, local_rank: int) -> Any:
    spec = options.device
    if isinstance(spec, str):
        return spec.format(local_rank=local_rank, rank=rank)
    if spec is not None or os.environ.get(DEVICE_ENV_VAR):
        return spec
    gpus = [d for d in backend.devices(None) if getattr(d, "type", None) == "gpu"]
    return gpus[local_rank % len(gpus)] if gpus else None


def local_product(a: Any, b: Any, setup: LocalSetup, out: Any = None) -> Any:
    """C = A @ B on this rank's device (``out``, when given, receives it). Operands that
    are device arrays (``pyopencl.array.Array``) are used where they are and C stays on
    the device. A block with no rows, columns or depth (more ranks than rows, a K slice
    past the end) gives zeros without a device call."""
    m, k = a.shape
    n = b.shape[1]
    if 0 in (m, n, k):
        return _zeros(a, (m, n), out)
    options = setup.options
    result = gemm(a, b, device=setup.device, variant=options.variant,
                  params=options.params, backend=options.backend, out=out)
    setup.last = result
    setup.products += 1
    return result.c


def _zeros(a: Any, shape: tuple[int, int], out: Any) -> Any:
    """Zeros of C's shape (in ``out`` when given); on the device, finished before this
    returns, as a product's C is (a copy on another queue may read it next)."""
    if is_device_array(a) or is_device_array(out):
        import pyopencl.array as cl_array

        c = out if out is not None else cl_array.zeros(a.queue, shape, a.dtype)
        if out is not None and out.size:
            out.fill(0)
        c.finish()
        return c
    if out is not None:
        out.fill(0)
        return out
    return np.zeros(shape, a.dtype)


def accumulate(c: Any, part: Any) -> Any:
    """c += part (numpy, or a device array: then added on the device and waited for)."""
    c += part
    if is_device_array(c):
        c.finish()
    return c


def timed_product(a: Any, b: Any, setup: LocalSetup) -> tuple[Any, float]:
    """:func:`local_product` and its wall time in ms (for the one-rank baseline)."""
    start = time.perf_counter()
    c = local_product(a, b, setup)
    return c, (time.perf_counter() - start) * 1e3
