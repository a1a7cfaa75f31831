"""``choose``: the variant and parameters ``variant="auto"`` runs, and why.

The tuning database first (the user's, then the package's; :mod:`portgemm.auto.lookup`
says how an entry is picked), else a default from the device's properties
(:mod:`portgemm.auto.default`). The parameters are checked against the device here,
once; ``matmul`` asks on every call, so answers are remembered until a database changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..caches import cache_dict
from ..runtime.device import Device
from .database import default_sources, file_stamp
from .default import default_choice
from .lookup import lookup

MEMO_LIMIT = 1024


@dataclass(frozen=True)
class Choice:
    variant: str
    params: dict[str, Any]   # checked against the device and dtype
    reason: str
    source: str = "model"    # "user" or "shipped" (a tuning database), or "model"


_memo: dict = cache_dict("portgemm.auto.choice._memo")


def choose(device: Device, m: int, n: int, k: int, itemsize: int = 4, *,
           sources: Sequence[tuple[str, str | Path]] | None = None) -> Choice:
    """The variant and parameters for this device and shape, with the reason.

    ``sources`` replaces the databases consulted: (label, path) pairs, first wins.
    """
    sources = (default_sources() if sources is None
               else [(label, Path(path)) for label, path in sources])
    stamps = tuple((label, path, file_stamp(path)) for label, path in sources)
    key = (device, m, n, k, itemsize, stamps)
    choice = _memo.get(key)
    if choice is None:
        if len(_memo) > MEMO_LIMIT:
            _memo.clear()
        choice = _memo[key] = _choose(device, m, n, k, itemsize, sources)
    return choice


def _choose(device: Device, m: int, n: int, k: int, itemsize: int,
            sources: Sequence[tuple[str, Path]]) -> Choice:
    found, notes = lookup(device, m, n, k, itemsize, sources)
    if found is not None:
        return Choice(found.entry.variant, found.params, found.reason, found.entry.source)
    variant, params, reason = default_choice(device, m, n, k, itemsize)
    if notes:
        reason += "; passed over: " + "; ".join(notes)
    return Choice(variant, params, reason, "model")
