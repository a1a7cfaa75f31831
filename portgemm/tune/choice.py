"""What ``variant="auto"`` runs: the tuning database's entry for the device, else a heuristic."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from ..runtime.device import Device
from ..variants import get_variant
from . import db


@dataclass(frozen=True)
class Choice:
    variant: str
    params: dict[str, Any]
    reason: str
    source: str = "heuristic"  # "user" or "shipped" (tuning database) or "heuristic"


def choose(device: Device, m: int, n: int, k: int, itemsize: int = 4, *,
           sources: Sequence[tuple[str, str | Path]] | None = None) -> Choice:
    """The variant and parameters for this device and shape, with the reason.

    The tuning database first (the user's, then the package's; see
    :mod:`portgemm.tune.db` for the lookup order), else the heuristic default.
    ``sources`` replaces the databases consulted: (label, path) pairs, first wins.
    """
    if sources is None:
        sources = [("user", db.user_database_path())] + [("shipped", p) for p in _shipped()]
    # matmul asks on every call: remember answers until a database file changes
    key = (device, max(m, n, k), itemsize, _stamps(tuple((label, str(path))
                                                         for label, path in sources)))
    choice = _memo.get(key)
    if choice is None:
        if len(_memo) > 1024:
            _memo.clear()
        choice = _memo[key] = _lookup(device, m, n, k, itemsize, sources)
    return choice


_memo: dict = {}


@lru_cache(maxsize=1)
def _shipped() -> tuple[Path, ...]:
    return tuple(db.shipped_database_paths())  # package files: listed once per process


STAMP_INTERVAL_S = 1.0
_last_stamps: dict = {}


def _stamps(sources: tuple) -> tuple:
    """The sources with their files' (mtime, size), read again at most once a second:
    a stat per call costs more than the rest of a warm matmul on some systems (gVisor).
    The tuner's own writes land in the user file and are seen within that second."""
    now = time.monotonic()
    cached = _last_stamps.get(sources)
    if cached is None or now - cached[0] > STAMP_INTERVAL_S:
        cached = _last_stamps[sources] = (now, tuple(
            (label, path, _stamp(path)) for label, path in sources))
    return cached[1]


def forget_stamps() -> None:
    """Read the databases' stamps again on the next call (after a write)."""
    _last_stamps.clear()


def _stamp(path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _lookup(device: Device, m: int, n: int, k: int, itemsize: int,
            sources: Sequence[tuple[str, str | Path]]) -> Choice:
    found, notes = db.lookup(device, m, n, k, itemsize, sources)
    if found is not None:
        return Choice(found.variant, found.params, found.reason, found.source)
    choice = _heuristic(device, itemsize)
    if notes:
        choice = Choice(choice.variant, choice.params,
                        choice.reason + "; passed over: " + "; ".join(notes), choice.source)
    return choice


def _heuristic(device: Device, itemsize: int) -> Choice:
    variant = get_variant("inreg")
    params = variant.resolve(None)
    if variant.problems(params, device, itemsize):  # a device with tiny work-groups
        variant = get_variant("naive")
        params = {"wg_y": 1, "wg_x": 1}
    return Choice(variant.name, params, "heuristic default (no tuning entry for this device)")
