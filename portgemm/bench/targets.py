"""What the bench runs on: (backend, device) pairs named on the command line.

``--device`` takes comma-separated items. An item that starts with a backend's name
(``host``, ``dpex``, ``dpex:<dpctl filter>``, ``opencl:gpu:0``) goes to that backend; any
other item is an OpenCL selector spec (``gpu``, ``intel``, ``cpu:1``...); ``all`` is every
device of every backend (dpex only when numba-dpex is installed). With no ``--device``,
the default OpenCL device (``$PORTGEMM_DEVICE`` when set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..backends import DEFAULT_BACKEND, backend_names, get_backend
from ..errors import DeviceNotFoundError, ParameterError


@dataclass(frozen=True)
class Target:
    backend: str   # a registered backend name
    device: Any    # that backend's device object
    label: str     # the bench's device column: a filter string, "host", "dpex:<filter>"

    @property
    def opencl_device(self):
        """The OpenCL device this target runs on (for CLBlast beside it), else None."""
        import pyopencl as cl

        return self.device if isinstance(getattr(self.device, "handle", None), cl.Device) else None

    def variant_names(self) -> list[str]:
        return get_backend(self.backend).variants()  # all: those that cannot run say why


def _targets(backend: str, spec: str | None) -> list[Target]:
    chosen = get_backend(backend)
    return [Target(backend, d, chosen.label(d)) for d in chosen.devices(spec)]


def parse_targets(spec: str | None) -> list[Target]:
    """The devices of ``--device`` (None: the default device). A blank one, or a blank
    item of a list, is a DeviceNotFoundError as select_device("") is, not the default
    device (``--device "$DEV"`` with DEV unset benchmarked it without a word)."""
    if spec is None:
        return _targets(DEFAULT_BACKEND, "")
    targets: list[Target] = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            raise DeviceNotFoundError(f"--device {spec!r} names a blank device; leave "
                                      f"--device out for the default one")
        head, _, rest = item.partition(":")
        if item.lower() == "all":
            found = [t for name in backend_names() for t in _targets(name, None)]
        elif head.lower() in backend_names() and head.lower() != DEFAULT_BACKEND:
            found = _targets(head.lower(), rest)
        else:  # OpenCL filter strings begin with "opencl:" themselves
            found = _targets(DEFAULT_BACKEND, item)
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
        raise ParameterError(f"unknown variant {', '.join(map(repr, unknown))} for these "
                             f"devices; known: {', '.join(sorted(known))}")
