"""The choice of ``variant="auto"`` when no tuning database has an entry for the device."""

from __future__ import annotations

from typing import Any

from ..families import get_variant
from ..runtime.device import Device


def default_choice(device: Device, m: int, n: int, k: int,
                   itemsize: int) -> tuple[str, dict[str, Any], str]:
    """(variant, checked parameters, reason) from the device's properties alone."""
    variant = get_variant("inreg")
    params = variant.resolve(None)
    if variant.problems(params, device, itemsize):  # a device with tiny work-groups
        variant = get_variant("naive")
        params = {"wg_y": 1, "wg_x": 1}
    return variant.name, params, "heuristic default (no tuning entry for this device)"
