"""SYCL/dpctl-style device selection.

A spec is one of:

* ``None`` -- ``$PORTGEMM_DEVICE`` when set, else the default selector;
* a :class:`Device` -- returned as it is;
* a callable ``score(device) -> number`` -- SYCL semantics: the highest score wins,
  ties go to the earlier device, a negative score rejects the device;
* a string of comma-separated alternatives, the first that matches wins ("gpu,cpu").
  Each alternative is ``default``, a device type (``cpu``, ``gpu``, ``accelerator``),
  a dpctl filter string ``backend:type:index`` or any part of it in that order
  (``opencl:gpu``, ``gpu:1``, ``opencl:0``), or else a case-insensitive substring of
  the platform name, vendor, device name or platform version (tried in that
  order) (``nvidia``, ``intel``,
  ``pocl``).

Anything else (an int, a pyopencl.Device, ...) is a TypeError naming these: an index
alone would be ambiguous across platforms, so it is written ``"opencl:0"`` or ``"cpu:1"``.
"""

from __future__ import annotations

import copyreg
import numbers
import os
from typing import Callable, Sequence, Union

from ..caches import memoize
from ..errors import DeviceNotFoundError, ParameterError
from .device import DEVICE_TYPES, Device, get_devices

FILTER_BACKENDS = ("opencl",)  # the backend field of the filter strings this module reads
DEVICE_ENV_VAR = "PORTGEMM_DEVICE"
DeviceSpec = Union[None, str, Device, Callable[[Device], float]]


def default_score(device: Device) -> float:
    """A GPU if there is one, else an accelerator, else a CPU; a vendor's own driver
    before PoCL for the same kind of device (it is usually faster there)."""
    base = {"gpu": 1000, "accelerator": 500, "cpu": 300}.get(device.type, 0)
    return base + (0 if "portable computing language" in device.platform.lower() else 10)


def select_device(spec: DeviceSpec = None, devices: Sequence[Device] | None = None) -> Device:
    """Pick one device; raise :class:`DeviceNotFoundError` (a LookupError) when none
    matches, TypeError when ``spec`` is none of the kinds a spec can be."""
    if isinstance(spec, Device):
        if is_sycl_device(spec):  # its handle is no pyopencl.Device (std::bad_cast later)
            raise ParameterError(f"{spec.description} is the dpex backend's SYCL device; "
                                 f"the OpenCL backend takes its own: a selector string "
                                 f"('intel', 'opencl:cpu', ...) or one of get_devices()")
        return spec
    check_spec_type(spec)
    origin = ""
    if spec is None:
        spec = os.environ.get(DEVICE_ENV_VAR, "").strip() or "default"  # spaces: unset
        origin = f" (${DEVICE_ENV_VAR})" if spec != "default" else ""
    if devices is None and isinstance(spec, str):
        found = _select_present(spec)  # matmul(device="gpu") asks on every call
        if found is not None:
            return found
    candidates = list(get_devices() if devices is None else devices)
    found = _by_score(spec, candidates) if callable(spec) else _by_string(spec, candidates)
    if found is None:
        present = "\n  ".join(d.description for d in candidates) or "(none: is an OpenCL driver installed?)"
        raise DeviceNotFoundError(f"no device matches {spec!r}{origin}; devices present:\n  {present}")
    return found


def check_spec_type(spec) -> None:
    """TypeError unless ``spec`` is None, a string, a Device or a callable score."""
    if spec is None or isinstance(spec, (str, Device)) or callable(spec):
        return
    hint = (f" (an index is written 'opencl:{spec}' or 'cpu:{spec}')"
            if isinstance(spec, int) and not isinstance(spec, bool) else "")
    raise TypeError(f"a device spec is None, a selector string ('gpu', 'opencl:cpu:1', "
                    f"'intel'...), a portgemm Device or a callable score(device); got "
                    f"{type(spec).__name__} {spec!r}{hint}")


@memoize(maxsize=64)
def _select_present(spec: str) -> Device | None:
    """A string spec resolved against the devices present (they do not change)."""
    return _by_string(spec, get_devices())


def select_devices(spec: str, devices: Sequence[Device] | None = None) -> list[Device]:
    """Several devices for side-by-side runs: ``all``, or comma-separated specs."""
    candidates = list(get_devices() if devices is None else devices)
    if spec.strip().lower() == "all":
        return candidates
    chosen = []
    for part in spec.split(","):
        device = select_device(part.strip(), candidates)
        if device not in chosen:
            chosen.append(device)
    return chosen


def _by_score(score: Callable[[Device], float], devices: Sequence[Device]) -> Device | None:
    best, best_score = None, None
    for device in devices:
        value = score(device)
        if value is not None and not isinstance(value, numbers.Real):
            raise TypeError(f"a selector callable returns a number (negative: never this "
                            f"device) or None, got {value!r} for {device.description}")
        if value is not None and value >= 0 and (best_score is None or value > best_score):
            best, best_score = device, value
    return best


def _by_string(spec: str, devices: Sequence[Device]) -> Device | None:
    for alternative in spec.split(","):
        alternative = alternative.strip().lower()
        if not alternative:
            continue
        device = (_by_score(default_score, devices) if alternative == "default"
                  else _by_filter(alternative, devices))
        if device is not None:
            return device
    return None


def _by_filter(text: str, devices: Sequence[Device]) -> Device | None:
    parts = text.split(":")
    parsed = _parse_filter(parts)
    if parsed is None:  # not a filter string: a name, vendor or platform substring
        # Platform first: on an Intel CPU, PoCL's *vendor* is "GenuineIntel" too.
        for field in ("platform", "vendor", "name", "platform_version"):
            found = next((d for d in devices if text in getattr(d, field).lower()), None)
            if found is not None:
                return found
        return None
    backend, kind, index = parsed
    matching = [d for d in devices
                if backend in (None, d.backend) and kind in (None, d.type)]
    position = 0 if index is None else index
    return matching[position] if position < len(matching) else None


def _parse_filter(parts: list[str]):
    """(backend, type, index) when ``parts`` read as a dpctl filter, else None.

    Fields come in the order backend, type, index; each may be left out, and ``*`` means
    any. ``opencl:gpu:0``, ``gpu``, ``gpu:1``, ``opencl:1``, ``*:cpu`` all parse.
    """
    fields = {"backend": None, "type": None, "index": None}
    order = ("backend", "type", "index")
    position = 0
    for part in parts:
        kind = ("backend" if part in FILTER_BACKENDS else "type" if part in DEVICE_TYPES
                else "index" if part.isdigit() else "any" if part == "*" else None)
        if kind is None:
            return None
        if kind == "any":
            position += 1
            continue
        at = order.index(kind)
        if at < position:
            return None
        fields[kind] = int(part) if kind == "index" else part
        position = at + 1
    return fields["backend"], fields["type"], fields["index"]


def is_sycl_device(device: Device) -> bool:
    """Whether ``device`` is the dpex backend's (its handle a dpctl.SyclDevice), told
    without importing dpctl."""
    return type(device.handle).__module__.split(".")[0] == "dpctl"


def selected_again(filter_string: str, name: str, backend: str = "opencl") -> Device:
    """The device of ``filter_string`` on ``backend`` in this process (an unpickled
    Device); a DeviceNotFoundError where it is another device here."""
    from ..backends import get_backend

    device = get_backend(backend).device(filter_string)
    if device.name != name:
        raise DeviceNotFoundError(f"{filter_string} is {device.name} in this process, not "
                                  f"{name}")
    return device


def _pickled_device(device: Device):
    """An OpenCL or dpex Device pickles as the way to select it again: its driver handle
    is its process's own (pickling failed: "cannot pickle 'Device' object", dpctl's "no
    default __reduce__"), so a device sent to a spawned worker is the one of its filter
    string there, on its backend, checked by name. A described one (no handle) pickles
    as it is."""
    if is_sycl_device(device):
        return selected_again, (device.filter_string, device.name, "dpex")
    import pyopencl as cl

    if not isinstance(device.handle, cl.Device):
        return object.__reduce_ex__(device, 2)
    return selected_again, (device.filter_string, device.name)


copyreg.pickle(Device, _pickled_device)
