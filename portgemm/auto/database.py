"""The tuning database files: where they are, their format, and reading them.

Two layers, the first one found wins for the same key:

1. the user's database, written by ``python -m portgemm.tune --save``:
   ``$PORTGEMM_TUNING_DB`` if set, else ``platformdirs.user_cache_dir("portgemm")/tuning.json``;
2. the databases shipped in the package, ``portgemm/auto/shipped/*.json``.

``PORTGEMM_TUNING_DB=none`` turns both off (``auto`` then chooses from the device's
properties alone).

File format (docs/tuning.md has an example)::

    {"format": "portgemm-tuning", "version": 1,
     "devices": [{"match": {"vendor": ..., "name": ..., "driver_version": ...},
                  "description": "free text",
                  "entries": [{"variant": "inreg", "shape_class": "medium",
                               "dtype": "float32", "params": {...}, "gflops": 51.2,
                               "kernel_ms": 5.1, "sizes": [[512, 512, 512]], ...}]}]}

Reading only: the tuner writes (:mod:`portgemm.tune.save`), ``variant="auto"`` reads
through here on every call, so a file's stamp is read again at most once a second.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ..caches import cache_dict, memoize
from ..errors import PortgemmError
from ..files import path_setting, user_cache_folder

FORMAT = "portgemm-tuning"
VERSION = 1
TUNING_DB_ENV_VAR = "PORTGEMM_TUNING_DB"
DTYPES = {4: "float32", 8: "float64"}
STAMP_INTERVAL_S = 1.0


class DatabaseError(PortgemmError, ValueError):
    """A tuning database file that cannot be read or does not have the expected format."""


def user_database_path() -> Path:
    """``$PORTGEMM_TUNING_DB``, else the user's cache dir's tuning.json."""
    return _user_database_path(*_environment())


@memoize(maxsize=8)
def _user_database_path(explicit, *_environment) -> Path:
    """Keyed by the variables the answer depends on: matmul asks on every call."""
    explicit = path_setting(explicit)
    if explicit:
        return Path(explicit).expanduser()
    return user_cache_folder() / "tuning.json"


@memoize
def shipped_database_paths() -> tuple[Path, ...]:
    """The package's own database files (listed once per process)."""
    folder = resources.files("portgemm") / "auto" / "shipped"
    try:
        return tuple(sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json")))
    except (FileNotFoundError, NotADirectoryError):
        return ()


def databases_disabled() -> bool:
    return _disabled(os.environ.get(TUNING_DB_ENV_VAR))


def _disabled(explicit: str | None) -> bool:
    return path_setting(explicit) is None


def default_sources() -> list[tuple[str, Path]]:
    """(label, path) of every database consulted, highest precedence first; none when
    ``PORTGEMM_TUNING_DB=none``."""
    return list(_default_sources(*_environment()))


def default_sources_key() -> tuple[tuple[str, Path], ...]:
    """:func:`default_sources` as a tuple, fit for a key: ``choose`` asks on every call,
    and the list built afresh cost a quarter of a warm small matmul's Python time."""
    return _default_sources(*_environment())


def _environment() -> tuple[str | None, ...]:
    get = os.environ.get
    return get(TUNING_DB_ENV_VAR), get("XDG_CACHE_HOME"), get("HOME")


@memoize(maxsize=8)
def _default_sources(explicit, *environment) -> tuple[tuple[str, Path], ...]:
    if _disabled(explicit):
        return ()
    return ((("user", _user_database_path(explicit, *environment)),)
            + tuple(("shipped", p) for p in shipped_database_paths()))


# --- stamps and contents: the one cache of what the files hold ------------------------

_stamps: dict = cache_dict("portgemm.auto.database._stamps")      # path -> (read at, stamp)
_contents: dict = cache_dict("portgemm.auto.database._contents")  # path -> (stamp, data)


def file_stamp(path: Path, *, fresh: bool = False) -> tuple[int, int, int] | None:
    """(mtime_ns, size, inode) of a file, None if absent (a save replaces the file, so a
    new inode tells two writes in the same clock tick apart); read again at most once a second (a
    stat per call costs more than a warm matmul on some systems) unless ``fresh``."""
    now = time.monotonic()
    cached = _stamps.get(path)
    if fresh or cached is None or now - cached[0] > STAMP_INTERVAL_S:
        try:
            stat = os.stat(path)
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except OSError:
            stamp = None
        cached = _stamps[path] = (now, stamp)
    return cached[1]


def forget_stamps() -> None:
    """Read the files' stamps again on the next call (after a write in this process)."""
    _stamps.clear()


def empty_database() -> dict:
    return {"format": FORMAT, "version": VERSION, "devices": []}


def read_database(path: str | os.PathLike, *, fresh: bool = False) -> dict:
    """A database file's content ({} devices when the file does not exist); re-read only
    when its stamp changes. DatabaseError when it is unreadable or of another format."""
    path = Path(path)
    stamp = file_stamp(path, fresh=fresh)
    if stamp is None:
        return empty_database()
    cached = _contents.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if not path.is_file():  # /dev/zero, a folder, a pipe: reading would never end, or fail
        raise DatabaseError(f"cannot read tuning database {path}: not a regular file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # (JSON nested past Python's stack)
        raise DatabaseError(f"cannot read tuning database {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DatabaseError(f"{path} is not a portgemm tuning database "
                            f"(expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise DatabaseError(f"{path} has database version {data.get('version')!r}; this "
                            f"portgemm reads version {VERSION}")
    if not isinstance(data.get("devices"), list):
        raise DatabaseError(f"{path}: \"devices\" must be a list")
    _contents[path] = (stamp, data)
    return data


@dataclass(frozen=True)
class Entry:
    """One well-formed entry of a database, with the record and file it came from."""

    match: dict
    entry: dict
    source: str  # the label of its database: "user" or "shipped"
    path: Path

    @property
    def variant(self) -> str:
        return self.entry["variant"]

    @property
    def gflops(self) -> float:
        value = self.entry.get("gflops")
        return float(value) if isinstance(value, (int, float)) else 0.0


def records(sources: Sequence[tuple[str, Path]],
            notes: list[str]) -> Iterator[tuple[str, Path, dict, list[Entry]]]:
    """(label, path, match, well-formed entries) of every device record, in order of precedence; what
    is skipped (an unreadable file, a malformed record or entry) is said in ``notes``."""
    for label, path in sources:
        try:
            data = read_database(path)
        except DatabaseError as exc:
            notes.append(f"{label} database skipped: {exc}")
            continue
        for number, record in enumerate(data["devices"]):
            problem = record_problem(record)
            if problem:
                notes.append(f"{label} device record #{number} in {path} skipped: {problem}")
                continue
            match, found = dict(record["match"]), record["entries"]
            good = []
            for entry in found:
                problem = entry_problem(entry)
                if problem:
                    notes.append(f"{label} entry in {path} skipped: {problem}")
                    continue
                good.append(Entry(match, entry, label, Path(path)))
            yield label, Path(path), match, good


def record_problem(record: Any) -> str:
    """Why a device record is malformed ('' when it is not): a mapping whose match is a
    mapping and whose entries are a list (``dict("ab")`` or a string's characters are
    neither)."""
    if not isinstance(record, Mapping):
        return f"a device record is a mapping, not {type(record).__name__}"
    if not isinstance(record.get("match"), Mapping):
        return f"its match must be a mapping, not {record.get('match')!r}"
    if not isinstance(record.get("entries"), list):
        return f"its entries must be a list, not {record.get('entries')!r}"
    return ""


def entry_problem(entry: Any) -> str:
    """Why an entry of a database is malformed ('' when it is not): a variant, shape
    class and dtype that are strings, params a mapping, and sizes (where present) a list
    of [M, N, K] lists of positive whole numbers."""
    if not isinstance(entry, Mapping):
        return f"an entry is a mapping, not {type(entry).__name__}"
    needed = ("variant", "shape_class", "dtype")
    if not all(isinstance(entry.get(key), str) for key in needed) or not isinstance(
            entry.get("params"), Mapping):
        return "needs variant, shape_class and dtype (strings) and params (a mapping)"
    sizes = entry.get("sizes", [])
    if not (isinstance(sizes, list) and all(
            isinstance(size, list) and len(size) == 3 and all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in size)
            for size in sizes)):
        return f"sizes must be a list of [M, N, K] lists of positive integers, not {sizes!r}"
    return ""
