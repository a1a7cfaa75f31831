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
from ..families import get_variant
from .database import default_sources, file_stamp
from .default import default_choice
from .lookup import lookup
from .shapes import SIZE_CLASSES, classify
from .splitk import fitting_tile, ksplit

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
    own, why = classify(m, n, k)
    if own == "deep-k":
        return _deep_k(device, m, n, k, itemsize, sources, f"shape class {own} ({why})")
    found, notes = lookup(device, m, n, k, itemsize, sources)
    if found is None:
        variant, params, reason = default_choice(device, m, n, k, itemsize)
        if notes:
            reason += "; passed over: " + "; ".join(notes)
        return Choice(variant, params, reason, "model")
    return Choice(found.entry.variant, found.params,
                  f"shape class {own} ({why}); {found.reason}", found.entry.source)


def _deep_k(device: Device, m: int, n: int, k: int, itemsize: int,
            sources: Sequence[tuple[str, Path]], why: str) -> Choice:
    """A deep-K entry of the device when there is one; else the tile that fits C best
    among the size classes' entries and the presets, split along K by the model."""
    found, notes = lookup(device, m, n, k, itemsize, sources, classes=["deep-k"])
    if found is not None:
        return Choice(found.entry.variant, found.params, f"{why}; {found.reason}",
                      found.entry.source)
    xgemm = get_variant("xgemm")
    tiles = []  # (checked params, where from, source)
    for cls in SIZE_CLASSES:
        entry, _ = lookup(device, m, n, k, itemsize, sources, classes=[cls])
        if entry is not None and entry.entry.variant == xgemm.name:
            tiles.append((entry.params, f"{entry.entry.source} {cls}-class entry",
                          entry.entry.source))
    for name, preset in xgemm.presets_for(device):
        if not xgemm.problems(xgemm.resolve(preset), device, itemsize):
            tiles.append((xgemm.resolve(preset), f"xgemm's {name} preset", "model"))
    if not tiles:
        variant, params, reason = default_choice(device, m, n, k, itemsize)
        return Choice(variant, params, reason, "model")
    chosen = fitting_tile([t[0] for t in tiles], m, n)
    params, origin, source = next(t for t in tiles if t[0] is chosen)
    split, why_split = ksplit(device, params, m, n, k, itemsize)
    return Choice(xgemm.name, xgemm.check({**params, "KSPLIT": split}, device, itemsize),
                  f"{why}; tile {params['MWG']}x{params['NWG']} from the {origin} (the "
                  f"largest inside C of {len(tiles)}); {why_split}", source)
