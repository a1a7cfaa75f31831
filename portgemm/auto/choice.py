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
from .shapes import classify
from .splitk import ksplit

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
    if found is None:
        variant, params, reason = default_choice(device, m, n, k, itemsize)
        if notes:
            reason += "; passed over: " + "; ".join(notes)
        return Choice(variant, params, reason, "model")
    own, why = classify(m, n, k)
    variant, params, reason = found.entry.variant, found.params, found.reason
    impl = get_variant(variant)
    if own == "deep-k" and found.shape_class != own and "KSPLIT" in impl.parameter_names:
        # a tile configuration tuned for ordinary shapes, split along K by the model
        split, why_split = ksplit(device, params, m, n, k, itemsize)
        params = impl.check({**params, "KSPLIT": split}, device, itemsize)
        reason += f"; {why_split}"
    return Choice(variant, params, f"shape class {own} ({why}); {reason}", found.entry.source)
