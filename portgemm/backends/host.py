"""The host backend: the serial references and the OpenMP-style threaded GEMM, as named
variants that ``matmul(..., backend="host")`` and the bench run beside the OpenCL ones.

Variant names: ``serial-<algorithm>`` for each of :data:`serial.SERIAL_ALGORITHMS`
(ijk, ikj, unroll4, blocked, divide_conquer, strassen) and ``threads-<partition>`` for
each threaded partition (rows, collapse, atomic, numpy). Parameters are the functions'
keywords (block, cutoff; schedule, chunk, num_threads, block, body).
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from ..caches import memoize
from ..errors import ParameterError
from ..memory import copy_into
from ..operands import host_arrays_only
from ..parallel import default_num_threads
from ..result import GemmResult
from ..runtime.device import Device
from . import Resolved
from .serial import SERIAL_ALGORITHMS
from .serial import check_params as check_serial
from .threads import PARTITIONS, gemm_threads
from .threads import check_params as check_threads


@dataclass(frozen=True)
class HostDevice:
    """The machine's own CPU, as a bench row and a GemmResult name it."""

    name: str
    backend: str = "host"
    type: str = "cpu"
    filter_string: str = "host"
    has_fp64: bool = True

    @property
    def description(self) -> str:
        try:
            threads = f"{default_num_threads()} threads"
        except ParameterError:  # a bad PORTGEMM_NUM_THREADS is the threaded calls' error,
            threads = "threads: see PORTGEMM_NUM_THREADS"  # not every host call's
        return f"{self.name} (host, {threads})"


@memoize
def host_device() -> HostDevice:
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            name = next((line.split(":", 1)[1].strip() for line in f
                         if line.startswith("model name")), name)
    except OSError:
        pass
    return HostDevice(name)


@dataclass(frozen=True)
class HostVariant:
    name: str
    function: Callable[..., np.ndarray]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)  # keywords the name implies
    # ParameterError for a bad value: the function's own check, run at resolve so that
    # a call that never runs the function (an empty product) is checked the same
    check: Callable[..., Any] = field(default=lambda **params: None)

    @property
    def parameter_names(self) -> frozenset[str]:
        return frozenset(self.defaults)

    def resolve(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ParameterError(
                f"host variant {self.name!r} has no parameter {', '.join(unknown)}; its "
                f"parameters are {', '.join(sorted(self.defaults)) or 'none'}")
        resolved = {**self.defaults, **params}
        self.check(**self.fixed, **resolved)
        return resolved


def _host_variants() -> dict[str, HostVariant]:
    found = {f"serial-{name}": HostVariant(f"serial-{name}", fn, dict(defaults),
                                           check=check_serial)
             for name, (fn, defaults) in SERIAL_ALGORITHMS.items()}
    threaded = {"schedule": "static", "chunk": None, "num_threads": None, "block": 64,
                "body": "tile"}
    for partition in PARTITIONS:
        found[f"threads-{partition}"] = HostVariant(
            f"threads-{partition}", gemm_threads, threaded, {"partition": partition},
            check=check_threads)
    return found


HOST_VARIANTS = _host_variants()
DEFAULT_HOST_VARIANT = "threads-rows"


def get_host_variant(name: str) -> HostVariant:
    if name == "auto":
        name = DEFAULT_HOST_VARIANT
    try:
        return HOST_VARIANTS[name]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown host variant {name!r}; host variants: "
                             f"{', '.join(HOST_VARIANTS)}") from None


class HostBackend:
    name = "host"
    kernel_time = "the call's own time (host)"

    def device(self, spec: Any = None) -> HostDevice:
        if spec is not None and spec != "host" and not isinstance(spec, HostDevice):
            # as select_device answers: what is no device spec at all is a TypeError
            is_spec = isinstance(spec, (str, Device)) or callable(spec)
            error = ParameterError if is_spec else TypeError
            raise error(f"the host backend runs on the host CPU; got device={spec!r}")
        return host_device()

    def devices(self, spec: str | None = None) -> list[HostDevice]:
        return [self.device(spec or None)]

    def label(self, device: HostDevice) -> str:
        return "host"

    def variants(self, device: Any = None) -> list[str]:
        return list(HOST_VARIANTS)

    def variant(self, name: str) -> HostVariant:
        return get_host_variant(name)

    def resolve(self, device: HostDevice, variant: str, params: Mapping[str, Any] | None,
                shape: tuple[int, int, int], dtype: np.dtype, layout: str = "CC") -> Resolved:
        impl = get_host_variant(variant)
        source = "model" if variant == "auto" else "explicit"
        reason = f"the host backend's default, {impl.name}" if variant == "auto" else ""
        return Resolved(device, impl.name, impl.resolve(params), impl, source, reason)

    def resident_device(self, a, b) -> None:
        host_arrays_only(a, b, self.name)
        return None

    def run(self, resolved: Resolved, a, b, *, poison: float | None = None,
            out=None, wait: bool = True) -> GemmResult:
        """kernel_ms and wall_ms are both the call's wall time (there is no device, so no
        transfer separates them). ``poison`` and ``wait`` are accepted for a uniform
        interface: host variants return a freshly computed array."""
        impl, params = resolved.impl, resolved.params
        start = time.perf_counter()
        c = impl.function(a, b, **impl.fixed, **params)
        if out is not None:  # numpy's or a pyopencl array
            c = copy_into(out, c, wait=True)
        ms = (time.perf_counter() - start) * 1e3
        shown = {k: v for k, v in params.items() if v is not None}
        if impl.function is gemm_threads:
            shown["num_threads"] = params["num_threads"] or default_num_threads()
        return GemmResult(c, resolved.device, impl.name, shown, ms, ms, backend="host",
                          source=resolved.source, reason=resolved.reason)


BACKEND = HostBackend()

