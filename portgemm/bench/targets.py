"""What the bench runs on: (backend, device) pairs named on the command line.

``--device`` takes comma-separated items: an OpenCL selector spec (``gpu``,
``opencl:cpu:1``, ``intel``...), ``host`` (serial and threaded CPU variants), ``dpex`` or
``dpex:<dpctl filter>`` (numba-dpex kernels), or ``all`` (every OpenCL device, the host,
and the dpex devices when numba-dpex is installed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..runtime.selectors import select_devices
from ..variants import REGISTRY


@dataclass(frozen=True)
class Target:
    backend: str   # "opencl", "host" or "dpex"
    device: Any    # a Device, the HostDevice, or a dpex-described Device
    label: str     # the bench's device column: a filter string, "host", "dpex:<filter>"

    @property
    def spec(self) -> Any:
        """What ``gemm(device=...)`` takes for this target."""
        return {"opencl": self.device, "host": None,
                "dpex": self.label.removeprefix("dpex:")}[self.backend]

    def variant_names(self) -> list[str]:
        if self.backend == "host":
            from ..backends.host import HOST_VARIANTS
            return list(HOST_VARIANTS)
        if self.backend == "dpex":
            from ..backends.dpex import VARIANTS
            return list(VARIANTS)
        return list(REGISTRY)


def host_target() -> Target:
    from ..backends.host import host_device
    return Target("host", host_device(), "host")


def dpex_targets(filter_string: str | None = None) -> list[Target]:
    from ..backends.dpex import DEFAULT_DEVICE, _sycl_device, describe, dpex_available, \
        get_sycl_devices
    if filter_string is None and not dpex_available():
        return []
    devices = get_sycl_devices() if filter_string is None else [
        describe(_sycl_device(filter_string or DEFAULT_DEVICE))]
    return [Target("dpex", d, f"dpex:{d.filter_string}") for d in devices]


def parse_targets(spec: str | None) -> list[Target]:
    if not spec:
        return [Target("opencl", d, d.filter_string) for d in select_devices("default")]
    targets: list[Target] = []
    for item in (part.strip() for part in spec.split(",")):
        if item.lower() == "all":
            found = [Target("opencl", d, d.filter_string) for d in select_devices("all")]
            found += [host_target()] + dpex_targets()
        elif item.lower() == "host":
            found = [host_target()]
        elif item.lower() == "dpex" or item.lower().startswith("dpex:"):
            found = dpex_targets(item[5:] or "")
        else:
            found = [Target("opencl", d, d.filter_string) for d in select_devices(item)]
        targets += [t for t in found if t not in targets]
    return targets


def variants_for(target: Target, requested: str) -> list[str]:
    """The requested variant names that this target's backend has ('all': every one)."""
    names = target.variant_names()
    if requested == "all":
        return names
    wanted = [v.strip() for v in requested.split(",")]
    return [v for v in wanted if v == "auto" or v in names]


def check_variant_names(requested: str, targets: list[Target]) -> None:
    if requested == "all":
        return
    known = {"auto"}.union(*(t.variant_names() for t in targets))
    unknown = [v.strip() for v in requested.split(",") if v.strip() not in known]
    if unknown:
        raise ParameterError(f"unknown variant {', '.join(unknown)} for these devices; "
                             f"known: {', '.join(sorted(known))}")
