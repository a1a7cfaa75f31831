"""Which tuning-database entry ``variant="auto"`` takes for a device and shape.

A device record's ``match`` holds exactly the fields of one level, most specific first:
``exact`` (vendor, name, driver_version), ``name`` (vendor, name), ``vendor-type``
(vendor, type), ``type`` (type). Fields compare case-insensitively, whitespace
collapsed. Levels are tried most specific first; within a level the shape's own class
(:mod:`portgemm.auto.shapes`), then the nearest other classes. At one level and class the
first database (the user's before the shipped one) that has a usable entry decides,
whatever the variants: its own tuning of this device beats a shipped figure measured
elsewhere, perhaps at another size. Among that database's entries the highest measured
GFLOPS wins. An entry whose variant is
gone, whose parameters the variant rejects, or that breaks the device's limits is
skipped, and the reason noted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import ParameterError
from ..families import REGISTRY
from ..runtime.device import Device
from .database import DTYPES, Entry, records
from .shapes import class_order, shape_class

LEVELS = ("exact", "name", "vendor-type", "type")
LEVEL_FIELDS = {"exact": ("vendor", "name", "driver_version"), "name": ("vendor", "name"),
                "vendor-type": ("vendor", "type"), "type": ("type",)}


def normalize(value: Any) -> str:
    return " ".join(str(value).split()).lower()


def device_match(device: Device, level: str) -> dict[str, str]:
    """The ``match`` fields of ``device`` at one level of LEVELS."""
    if level not in LEVEL_FIELDS:
        raise ParameterError(f"unknown database level {level!r}; levels are {', '.join(LEVELS)}")
    return {f: " ".join(str(getattr(device, f)).split()) for f in LEVEL_FIELDS[level]}


def match_level(match: Mapping) -> str | None:
    """Which level a record's ``match`` fields make it; None when they make none."""
    fields = tuple(sorted(k for k, v in match.items() if v not in (None, "")))
    for level, wanted in LEVEL_FIELDS.items():
        if fields == tuple(sorted(wanted)):
            return level
    return None


def level_problem(match: Mapping) -> str:
    fields = sorted(k for k, v in match.items() if v not in (None, ""))
    return (f"match fields {fields} are not one of the levels "
            + "; ".join(f"{lv}: {', '.join(fs)}" for lv, fs in LEVEL_FIELDS.items()))


def match_key(match: Mapping) -> dict[str, str]:
    """A ``match``'s fields as compared: normalized, the empty ones left out, as
    :func:`match_level` leaves them out (a device with no driver version saves an
    exact-level record that is a name-level one)."""
    return {f: normalize(v) for f, v in match.items() if v not in (None, "")}


def matches(entry: Entry, device: Device, level: str) -> bool:
    return match_key(entry.match) == match_key(device_match(device, level))


def leveled(sources: Sequence[tuple[str, Path]], notes: list[str]) -> list[tuple[str, Entry]]:
    """(level, entry) for every entry of a record whose match makes a level. Which
    database's entry wins is decided among the usable ones (``lookup``'s preference): an
    entry of the user's that the device cannot run must not hide the shipped entry of
    the same variant and class."""
    found = []
    for label, path, match, good in records(sources, notes):
        level = match_level(match)
        if level is None:
            notes.append(f"{label} device record in {path} skipped: {level_problem(match)}")
            continue
        found.extend((level, entry) for entry in good)
    return found


@dataclass(frozen=True)
class Found:
    """The entry taken, its checked parameters, and what was passed over on the way."""

    entry: Entry
    params: dict[str, Any]
    level: str
    shape_class: str
    own_class: str
    notes: tuple[str, ...]

    @property
    def reason(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.entry.match.items())
        text = (f"tuning database ({self.entry.source}: {self.entry.path}): {self.level} "
                f"device match [{fields}], variant {self.entry.variant}, shape class "
                f"{self.shape_class}")
        if self.shape_class != self.own_class:
            text += f" (nearest tuned class; none valid for {self.own_class})"
        gflops, sizes = self.entry.entry.get("gflops"), self.entry.entry.get("sizes")
        if gflops is not None:
            text += f", measured {gflops} GFLOPS"
            if sizes:
                text += " at " + ", ".join("x".join(map(str, s)) for s in sizes)
        if self.notes:
            text += "; passed over: " + "; ".join(self.notes)
        return text


def checked_params(entry: Entry, device: Device, itemsize: int) -> tuple[dict | None, str]:
    """(parameters checked against the device, '') or (None, why the entry cannot run)."""
    variant = REGISTRY.get(entry.variant)
    if variant is None:
        return None, f"variant {entry.variant!r} is not registered"
    try:
        return variant.check(entry.entry["params"], device, itemsize), ""
    except ParameterError as exc:
        return None, str(exc)


def lookup(device: Device, m: int, n: int, k: int, itemsize: int,
           sources: Sequence[tuple[str, Path]],
           classes: Sequence[str] | None = None) -> tuple[Found | None, list[str]]:
    """The best usable entry for this device and shape, and notes on what was skipped;
    ``classes`` replaces the shape classes searched (nearest first)."""
    notes: list[str] = []
    dtype = DTYPES.get(itemsize, f"{itemsize}-byte")
    found = leveled(sources, notes)
    rank = {str(path): index for index, (_, path) in enumerate(sources)}

    def preference(entry: Entry) -> tuple[int, float]:
        """Smaller is preferred: the first database's entries, then the fastest."""
        return rank.get(str(entry.path), len(rank)), -entry.gflops

    own = classes[0] if classes else shape_class(m, n, k)  # the class asked for first
    for level in LEVELS:
        at_level = [e for lv, e in found if lv == level and matches(e, device, level)]
        for cls in (class_order(m, n, k) if classes is None else classes):
            best = None
            for entry in at_level:
                if entry.entry["shape_class"] != cls or entry.entry["dtype"] != dtype:
                    continue
                params, problem = checked_params(entry, device, itemsize)
                if params is None:
                    notes.append(f"{entry.source} {level} entry {entry.variant}/{cls} "
                                 f"{dict(entry.entry['params'])}: {problem}")
                elif best is None or preference(entry) < preference(best[0]):
                    best = (entry, params)
            if best is not None:
                return Found(best[0], best[1], level, cls, own, tuple(notes)), notes
    return None, notes
