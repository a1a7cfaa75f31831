"""What a GEMM variant is: a kernel family, its parameter space, limits and launch plan.

A variant never launches anything itself. It checks parameters against a device
(:meth:`Variant.problems`), and turns a shape plus parameters into a :class:`LaunchPlan`
(nd-range and -D defines); the backend runs the plan. New variants subclass
:class:`Variant`, override what differs, and are added to the registry in
``portgemm/variants/__init__.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from math import ceil
from typing import Any, Callable, Mapping

from ..errors import ParameterError
from ..runtime.device import Device
from ..runtime.ndrange import NDRange

Params = Mapping[str, Any]


@dataclass(frozen=True)
class LaunchPlan:
    """Everything a backend needs to run one GEMM of one shape."""

    ndrange: NDRange
    defines: tuple[tuple[str, Any], ...]  # -D NAME=value, parameter part only
    local_mem_bytes: int = 0


@lru_cache(maxsize=None)
def kernel_source(file_name: str) -> str:
    """The prelude plus one kernel family's OpenCL C source, read once."""
    folder = resources.files("portgemm") / "kernels_cl"
    return (folder / "common.h").read_text() + "\n" + (folder / file_name).read_text()


@dataclass(frozen=True)
class Restriction:
    """A predicate a parameter set must satisfy, and the message when it does not."""

    test: Callable[[Params], bool]
    message: str


class Variant:
    """A GEMM kernel configuration family running on OpenCL devices."""

    name: str = ""
    source_file: str = ""
    summary: str = ""
    space: dict[str, list] = {}       # tuning search space, parameter -> candidate values
    defaults: dict[str, Any] = {}     # used where the caller gives no value
    restrictions: tuple[Restriction, ...] = ()
    flags: tuple[str, ...] = ()        # on/off parameters, the only ones that may be 0
    backends: tuple[str, ...] = ("opencl",)

    # --- parameters ---------------------------------------------------------------
    def resolve(self, params: Params | None) -> dict[str, Any]:
        """Defaults overlaid with ``params``; unknown names and bad values raise."""
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ParameterError(
                f"variant {self.name!r} has no parameter {', '.join(unknown)}; its "
                f"parameters are {', '.join(sorted(self.defaults)) or 'none'}")
        resolved = {**self.defaults, **params}
        for key, value in resolved.items():
            least = 0 if key in self.flags else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                kind = "0 or 1" if key in self.flags else "a positive integer"
                raise ParameterError(
                    f"{self.name}: parameter {key} must be {kind}, got {value!r}")
        for restriction in self.restrictions:
            if not restriction.test(resolved):
                raise ParameterError(f"{self.name}: {restriction.message} (got {resolved})")
        return resolved

    def work_group(self, params: Params) -> tuple[int, int]:
        """Work-group size (rows, columns), SYCL order."""
        return params["wg_y"], params["wg_x"]

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        return 0

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        """Why these (resolved) parameters cannot run on ``device``; empty when they can."""
        wg = self.work_group(params)
        found = []
        if wg[0] * wg[1] > device.max_work_group_size:
            found.append(f"work-group {wg[0]}x{wg[1]} = {wg[0] * wg[1]} work-items exceeds "
                         f"the device's max_work_group_size {device.max_work_group_size}")
        limits = tuple(reversed(device.max_work_item_sizes[:2]))  # SYCL order
        if len(limits) == 2 and (wg[0] > limits[0] or wg[1] > limits[1]):
            found.append(f"work-group {wg[0]}x{wg[1]} exceeds the device's per-dimension "
                         f"work-item limits {limits[0]}x{limits[1]}")
        local = self.local_mem_bytes(params, itemsize)
        if local > device.local_mem_size:
            found.append(f"needs {local} bytes of local memory; the device has "
                         f"local_mem_size {device.local_mem_size}")
        return found

    def check(self, params: Params | None, device: Device, itemsize: int = 4) -> dict[str, Any]:
        """Resolved parameters, or ParameterError naming every limit they break."""
        resolved = self.resolve(params)
        problems = self.problems(resolved, device, itemsize)
        if problems:
            raise ParameterError(f"{self.name} {resolved} cannot run on "
                                 f"{device.description}: " + "; ".join(problems))
        return resolved

    # --- launch ------------------------------------------------------------------
    def elements_per_item(self, params: Params) -> tuple[int, int]:
        """(rows, columns) of C computed by one work-item."""
        return 1, 1

    def defines(self, params: Params) -> dict[str, Any]:
        return {}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        per_y, per_x = self.elements_per_item(params)
        ndrange = NDRange.covering((ceil(m / per_y), ceil(n / per_x)), self.work_group(params))
        defines = tuple(sorted(self.defines(params).items()))
        return LaunchPlan(ndrange, defines, self.local_mem_bytes(params, itemsize))

    @property
    def source(self) -> str:
        return kernel_source(self.source_file)

    def __repr__(self) -> str:
        return f"<variant {self.name}: {self.summary}>"


def restriction(message: str) -> Callable[[Callable[[Params], bool]], Restriction]:
    """Decorator form: ``@restriction("tile_x must divide ...")`` over a predicate."""
    return lambda test: Restriction(test, message)
