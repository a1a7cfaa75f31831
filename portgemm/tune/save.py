"""Writing the tuning database, and reading back what it holds for a warm start.

A save is a read-modify-write of one JSON file, done under an exclusive lock on a
``<file>.lock`` beside it so that concurrent savers (two tuning processes) never lose
each other's entries, and finished by an atomic rename so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from ..auto.database import (DTYPES, FORMAT, VERSION, DatabaseError, default_sources,
                              forget_stamps, read_database, records, user_database_path)
from ..auto.lookup import LEVELS, device_match, match_key, match_level
from ..auto.shapes import SHAPE_CLASSES
from ..files import write_atomically
from ..runtime.device import Device
from .results import TuneResult


def save(result: TuneResult, database=None, level: str = "exact"):
    """Write ``result``'s best candidate per shape class into a tuning database (the
    user's when ``database`` is None) under the device's record at ``level``; returns
    the path written, or None when no candidate was verified."""
    entries = result.database_entries()
    if not entries:
        return None
    return save_entries(database, result.device, entries, level)


def save_entries(path: str | os.PathLike | None, device: Device, entries: Iterable[Mapping],
                 level: str = "exact", description: str | None = None) -> Path:
    """Write ``entries`` under ``device``'s record at ``level`` into the database at
    ``path`` (the user database when None), replacing entries of the same variant,
    shape class and dtype."""
    path = Path(path) if path is not None else user_database_path()
    match = device_match(device, level)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        data = json.loads(json.dumps(read_database(path, fresh=True)))  # a private copy
        record = device_record(data, match, path)
        if record is None:
            record = {"match": match, "entries": []}
            data["devices"].append(record)
        record["description"] = description or f"{device.name} [{device.platform}] ({device.type})"
        for entry in entries:
            entry = dict(entry)
            key = (entry["variant"], entry["shape_class"], entry["dtype"])
            record["entries"] = [e for e in record["entries"] if _key(e) != key]
            record["entries"].append(entry)
        # entries that are not mappings (a note left by hand) stay, after the others
        record["entries"].sort(key=lambda e: (SHAPE_CLASSES.index(e.get("shape_class"))
                                              if _key(e)[1] in SHAPE_CLASSES else 9,
                                              str(_key(e)[2] or ""), str(_key(e)[0] or "")))
        write_atomically(path, format_database(data))
    forget_stamps()  # this process sees its own write at once
    return path


def device_record(data: Mapping, match: Mapping, path: Path) -> dict | None:
    """The record of ``data`` whose match is ``match`` (None if there is none); records
    that auto passes over (not a mapping, a match that is not one) are left alone, but
    the matching record's entries must be a list to be saved into (DatabaseError)."""
    wanted = match_key(match)
    for record in data["devices"]:
        if not (isinstance(record, dict) and isinstance(record.get("match"), dict)):
            continue
        if match_key(record["match"]) == wanted:
            record.setdefault("entries", [])
            if not isinstance(record["entries"], list):
                raise DatabaseError(f"cannot save into {path}: the record of {dict(match)} "
                                    f"has \"entries\" that are not a list; mend or remove it")
            return record
    return None


def _key(entry) -> tuple:
    """(variant, shape class, dtype) of an entry; Nones for one that is not a mapping."""
    if not isinstance(entry, dict):
        return (None, None, None)
    return (entry.get("variant"), entry.get("shape_class"), entry.get("dtype"))


def lock_path(path: Path) -> Path:
    """The file whose lock guards the database at ``path``."""
    return path.with_name(path.name + ".lock")


def check_database_writable(path: str | os.PathLike, device: Device | None = None,
                            level: str = "exact") -> None:
    """DatabaseError unless a save into ``path`` can read it (absent, or a database),
    save into ``device``'s record at ``level`` there, and lock it (its lock file absent or
    a regular file): said before any tuning."""
    path = Path(path)
    data = read_database(path, fresh=True)
    if device is not None:
        device_record(json.loads(json.dumps(data)), device_match(device, level), path)
    lock = lock_path(path)
    if lock.exists() and not lock.is_file():
        raise DatabaseError(f"cannot lock tuning database {path}: {lock} is not a regular "
                            f"file")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``<path>.lock`` for the block (POSIX flock; where
    there is none, no lock)."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    with open(lock_path(path), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)



def format_database(data: Mapping) -> str:
    """JSON text of a database with one line per entry (readable, and small diffs)."""
    lines = ["{", f' "format": {json.dumps(data.get("format", FORMAT))},',
             f' "version": {json.dumps(data.get("version", VERSION))},', ' "devices": [']
    devices = list(data.get("devices", []))
    for i, record in enumerate(devices):
        if not (isinstance(record, dict) and isinstance(record.get("match"), dict)):
            # passed over by auto; kept as it was written
            lines.append(f"  {json.dumps(record)}" + ("," if i < len(devices) - 1 else ""))
            continue
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
        lines.append("  }" + ("," if i < len(devices) - 1 else ""))
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
    for _, _, match, good in records(sources, []):
        level = match_level(match)
        if level is None:
            continue
        if match_key(match) != match_key(device_match(device, level)):
            continue
        for entry in good:
            if entry.variant == variant and entry.entry["dtype"] == dtype:
                found.append((LEVELS.index(level), -entry.gflops, dict(entry.entry["params"])))
    found.sort(key=lambda item: item[:2])
    unique = []
    for _, _, params in found:
        if params not in unique:
            unique.append(params)
    return unique
