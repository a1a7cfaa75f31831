"""The tuning database: the best parameters found per device, variant, shape class, dtype.

Two layers, the first one found wins for the same key:

1. the user's database, written by ``python -m portgemm.tune --save``:
   ``$PORTGEMM_TUNING_DB`` if set, else ``platformdirs.user_cache_dir("portgemm")/tuning.json``;
2. the defaults shipped in the package, ``portgemm/tune/database/*.json``.

File format (docs/tuning.md has an example)::

    {"format": "portgemm-tuning", "version": 1,
     "devices": [{"match": {"vendor": ..., "name": ..., "driver_version": ...},
                  "description": "free text",
                  "entries": [{"variant": "inreg", "shape_class": "medium",
                               "dtype": "float32", "params": {...}, "gflops": 51.2,
                               "kernel_ms": 5.1, "sizes": [[512, 512, 512]], ...}]}]}

A device record's ``match`` holds exactly the fields of one level, most specific first:
``exact`` (vendor, name, driver_version), ``name`` (vendor, name), ``vendor-type``
(vendor, type), ``type`` (type). Fields compare case-insensitively, whitespace
collapsed. Shape classes go by the largest of M, N, K: ``small`` below 512,
``large`` from 2048, ``medium`` between.
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..errors import ParameterError, PortgemmError
from ..runtime.device import Device

FORMAT = "portgemm-tuning"
VERSION = 1
ENV_VAR = "PORTGEMM_TUNING_DB"
LEVELS = ("exact", "name", "vendor-type", "type")
LEVEL_FIELDS = {"exact": ("vendor", "name", "driver_version"), "name": ("vendor", "name"),
                "vendor-type": ("vendor", "type"), "type": ("type",)}
SHAPE_CLASSES = ("small", "medium", "large")
SMALL_BELOW, LARGE_FROM = 512, 2048
DTYPES = {4: "float32", 8: "float64"}


class DatabaseError(PortgemmError, ValueError):
    """A tuning database file that cannot be read or does not have the expected format."""


def shape_class(m: int, n: int, k: int) -> str:
    """small (max dim < 512), medium, or large (max dim >= 2048)."""
    biggest = max(m, n, k)
    return "small" if biggest < SMALL_BELOW else "large" if biggest >= LARGE_FROM else "medium"


def class_order(m: int, n: int, k: int) -> list[str]:
    """Shape classes nearest first: the shape's own, then by distance of log(max dim)
    from each class's range."""
    biggest = math.log(max(m, n, k))
    bounds = {"small": (0.0, math.log(SMALL_BELOW)),
              "medium": (math.log(SMALL_BELOW), math.log(LARGE_FROM)),
              "large": (math.log(LARGE_FROM), math.inf)}
    own = shape_class(m, n, k)

    def distance(name):
        low, high = bounds[name]
        return 0.0 if name == own else min(abs(biggest - low), abs(biggest - high))
    return sorted(SHAPE_CLASSES, key=lambda name: (distance(name), name != own))


def _norm(value: Any) -> str:
    return " ".join(str(value).split()).lower()


def device_match(device: Device, level: str) -> dict[str, str]:
    """The ``match`` fields of ``device`` at one level of LEVELS."""
    if level not in LEVEL_FIELDS:
        raise ParameterError(f"unknown database level {level!r}; levels are {', '.join(LEVELS)}")
    return {f: " ".join(str(getattr(device, f)).split()) for f in LEVEL_FIELDS[level]}


def match_level(match: Mapping) -> str:
    """Which level a record's ``match`` fields make it; DatabaseError if none."""
    fields = tuple(sorted(k for k, v in match.items() if v not in (None, "")))
    for level, wanted in LEVEL_FIELDS.items():
        if fields == tuple(sorted(wanted)):
            return level
    raise DatabaseError(f"match fields {list(fields)} are not one of the levels "
                        + "; ".join(f"{lv}: {', '.join(fs)}" for lv, fs in LEVEL_FIELDS.items()))


def user_database_path() -> Path:
    """``$PORTGEMM_TUNING_DB``, else the user's cache dir's tuning.json."""
    return _user_database_path(os.environ.get(ENV_VAR), os.environ.get("XDG_CACHE_HOME"),
                               os.environ.get("HOME"))


@functools.lru_cache(maxsize=8)
def _user_database_path(explicit, *_environment) -> Path:
    """Keyed by the variables the answer depends on: matmul asks on every call."""
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("portgemm")) / "tuning.json"


def shipped_database_paths() -> list[Path]:
    folder = resources.files("portgemm") / "tune" / "database"
    try:
        return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def default_sources() -> list[tuple[str, Path]]:
    """(label, path) of every database consulted, highest precedence first."""
    return [("user", user_database_path())] + [("shipped", p) for p in shipped_database_paths()]


_loaded: dict[Path, tuple[tuple[int, int], dict]] = {}


def empty_database() -> dict:
    return {"format": FORMAT, "version": VERSION, "devices": []}


def read_database(path: str | os.PathLike) -> dict:
    """A database file's content ({} devices when the file does not exist); re-read only
    when the file changes. DatabaseError when it is unreadable or of another format."""
    path = Path(path)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return empty_database()
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _loaded.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DatabaseError(f"cannot read tuning database {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DatabaseError(f"{path} is not a portgemm tuning database "
                            f"(expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise DatabaseError(f"{path} has database version {data.get('version')!r}; this "
                            f"portgemm reads version {VERSION}")
    if not isinstance(data.get("devices"), list):
        raise DatabaseError(f"{path}: \"devices\" must be a list")
    _loaded[path] = (stamp, data)
    return data


@dataclass(frozen=True)
class Found:
    """An entry that matched, where it came from, and the notes of what was passed over."""

    variant: str
    params: dict[str, Any]
    entry: dict
    source: str        # "user" or "shipped"
    path: Path
    level: str
    match: dict
    shape_class: str
    own_class: str
    notes: tuple[str, ...]

    @property
    def reason(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.match.items())
        text = (f"tuning database ({self.source}: {self.path}): {self.level} device match "
                f"[{fields}], variant {self.variant}, shape class {self.shape_class}")
        if self.shape_class != self.own_class:
            text += f" (nearest tuned class; none valid for {self.own_class})"
        gflops, sizes = self.entry.get("gflops"), self.entry.get("sizes")
        if gflops is not None:
            text += f", measured {gflops} GFLOPS"
            if sizes:
                text += " at " + ", ".join("x".join(map(str, s)) for s in sizes)
        if self.notes:
            text += "; passed over: " + "; ".join(self.notes)
        return text


def _entries(sources: Sequence[tuple[str, Path]], notes: list[str]):
    """(level, match, entry, label, path) for every well-formed entry; for one
    (level, match, variant, shape class, dtype) only the highest-precedence source's
    (within one source, all of them: the best valid one is picked later)."""
    seen: set = set()
    for label, path in sources:
        mine: set = set()
        try:
            data = read_database(path)
        except DatabaseError as exc:
            notes.append(f"{label} database skipped: {exc}")
            continue
        for number, record in enumerate(data["devices"]):
            try:
                match = dict(record["match"])
                level = match_level(match)
                entries = list(record["entries"])
            except (KeyError, TypeError, DatabaseError) as exc:
                notes.append(f"{label} device record #{number} in {path} skipped: {exc}")
                continue
            key_match = tuple(sorted((k, _norm(v)) for k, v in match.items()))
            for entry in entries:
                try:
                    key = (level, key_match, entry["variant"], entry["shape_class"],
                           entry["dtype"])
                    dict(entry["params"])
                except (KeyError, TypeError, ValueError):
                    notes.append(f"{label} entry in {path} skipped: needs variant, "
                                 f"shape_class, dtype and params")
                    continue
                if key in seen:
                    continue
                mine.add(key)
                yield level, match, entry, label, path
        seen |= mine


def entry_problem(entry: Mapping, device: Device, itemsize: int) -> str:
    """Why a database entry cannot be used on ``device``; empty when it can."""
    from ..variants import REGISTRY

    variant = REGISTRY.get(entry["variant"])
    if variant is None:
        return f"variant {entry['variant']!r} is not registered"
    try:
        params = variant.resolve(entry["params"])
    except ParameterError as exc:
        return str(exc)
    found = variant.problems(params, device, itemsize)
    return "; ".join(found)


def lookup(device: Device, m: int, n: int, k: int, itemsize: int = 4,
           sources: Sequence[tuple[str, Path]] | None = None) -> tuple[Found | None, list[str]]:
    """The best database entry for this device and shape, and notes on what was skipped.

    Device levels are tried most specific first; within a level the shape's own class,
    then the nearest other classes; among several variants at the same level and class
    the highest measured GFLOPS wins. Entries whose variant is gone, whose parameters
    the variant rejects, or that break the device's limits are skipped (noted).
    """
    sources = default_sources() if sources is None else [(lb, Path(p)) for lb, p in sources]
    notes: list[str] = []
    dtype = DTYPES.get(itemsize, f"{itemsize}-byte")
    entries = list(_entries(sources, notes))
    own = shape_class(m, n, k)
    for level in LEVELS:
        wanted = {f: _norm(v) for f, v in device_match(device, level).items()}
        at_level = [e for e in entries if e[0] == level
                    and {f: _norm(v) for f, v in e[1].items()} == wanted]
        for cls in class_order(m, n, k):
            best, best_gflops = None, -math.inf
            for lv, match, entry, label, path in at_level:
                if entry["shape_class"] != cls or entry["dtype"] != dtype:
                    continue
                problem = entry_problem(entry, device, itemsize)
                if problem:
                    notes.append(f"{label} {level} entry {entry['variant']}/{cls} "
                                 f"{dict(entry['params'])}: {problem}")
                    continue
                gflops = entry.get("gflops")
                gflops = float(gflops) if isinstance(gflops, (int, float)) else 0.0
                if gflops > best_gflops:
                    best, best_gflops = (match, entry, label, path), gflops
            if best is not None:
                match, entry, label, path = best
                from ..variants import REGISTRY

                params = REGISTRY[entry["variant"]].resolve(entry["params"])
                return Found(entry["variant"], params, dict(entry), label, path, level,
                             dict(match), cls, own, tuple(notes)), notes
    return None, notes


def format_database(data: Mapping) -> str:
    """JSON text of a database with one line per entry (readable, and small diffs)."""
    lines = ["{", f' "format": {json.dumps(data.get("format", FORMAT))},',
             f' "version": {json.dumps(data.get("version", VERSION))},', ' "devices": [']
    records = list(data.get("devices", []))
    for i, record in enumerate(records):
        extra = {k: v for k, v in record.items() if k not in ("match", "description", "entries")}
        lines.append("  {")
        lines.append(f'   "match": {json.dumps(record.get("match", {}))},')
        if "description" in record:
            lines.append(f'   "description": {json.dumps(record["description"])},')
        for key, value in extra.items():
            lines.append(f"   {json.dumps(key)}: {json.dumps(value)},")
        entries = list(record.get("entries", []))
        lines.append('   "entries": [')
        lines.extend(f"    {json.dumps(e)}" + ("," if j < len(entries) - 1 else "")
                     for j, e in enumerate(entries))
        lines.append("   ]")
        lines.append("  }" + ("," if i < len(records) - 1 else ""))
    lines.extend([" ]", "}"])
    return "\n".join(lines) + "\n"


def known_params(device: Device, variant: str, itemsize: int = 4,
                 sources: Sequence[tuple[str, Path]] | None = None) -> list[dict]:
    """Parameters the databases hold for ``variant`` on this device (any level, any
    shape class, this dtype): most specific level first, then highest GFLOPS. The tuner's
    command line measures these first (a warm start)."""
    sources = default_sources() if sources is None else [(lb, Path(p)) for lb, p in sources]
    dtype = DTYPES.get(itemsize, f"{itemsize}-byte")
    found = []
    for level, match, entry, _, _ in _entries(sources, []):
        wanted = {f: _norm(v) for f, v in device_match(device, level).items()}
        if ({f: _norm(v) for f, v in match.items()} != wanted or entry["variant"] != variant
                or entry["dtype"] != dtype):
            continue
        gflops = entry.get("gflops")
        gflops = float(gflops) if isinstance(gflops, (int, float)) else 0.0
        found.append((LEVELS.index(level), -gflops, dict(entry["params"])))
    found.sort(key=lambda item: item[:2])
    unique = []
    for _, _, params in found:
        if params not in unique:
            unique.append(params)
    return unique


def save_entries(path: str | os.PathLike | None, device: Device, entries: Iterable[Mapping],
                 level: str = "exact", description: str | None = None) -> Path:
    """Write ``entries`` under ``device``'s record at ``level`` into the database at
    ``path`` (the user database when None), replacing entries of the same variant,
    shape class and dtype. The file is replaced atomically."""
    path = Path(path) if path is not None else user_database_path()
    data = read_database(path) if path.exists() else empty_database()
    data = json.loads(json.dumps(data))  # a private copy: read_database caches its result
    match = device_match(device, level)
    wanted = {f: _norm(v) for f, v in match.items()}
    record = next((r for r in data["devices"] if isinstance(r, dict)
                   and {f: _norm(v) for f, v in dict(r.get("match", {})).items()} == wanted), None)
    if record is None:
        record = {"match": match, "entries": []}
        data["devices"].append(record)
    record["description"] = description or f"{device.name} [{device.platform}] ({device.type})"
    for entry in entries:
        entry = dict(entry)
        key = (entry["variant"], entry["shape_class"], entry["dtype"])
        record["entries"] = [e for e in record["entries"]
                             if (e.get("variant"), e.get("shape_class"), e.get("dtype")) != key]
        record["entries"].append(entry)
    record["entries"].sort(key=lambda e: (SHAPE_CLASSES.index(e["shape_class"])
                                          if e.get("shape_class") in SHAPE_CLASSES else 9,
                                          e.get("dtype", ""), e.get("variant", "")))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tuning-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(format_database(data))
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    from .choice import forget_stamps  # this process sees its own write at once
    forget_stamps()
    return path
