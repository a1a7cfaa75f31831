"""The choice of ``variant="auto"`` when no tuning database has an entry for the device,
and the parameters of a variant named without any: both from the device's properties
and the shape, through the models of this package."""

from __future__ import annotations

from typing import Any

from ..families import get_variant
from ..runtime.device import Device
from .shapes import classify
from .tallskinny import tallskinny_params


def default_choice(device: Device, m: int, n: int, k: int,
                   itemsize: int) -> tuple[str, dict[str, Any], str]:
    """(variant, checked parameters, reason) from the device's properties alone."""
    own, why = classify(m, n, k)
    if own == "tall-skinny":
        params, reason = tallskinny_params(device, m, n, k, itemsize)
        return "tallskinny", get_variant("tallskinny").check(params, device, itemsize), (
            f"shape class {own} ({why}); {reason}")
    variant = get_variant("inreg")
    params = variant.resolve(None)
    if variant.problems(params, device, itemsize):  # a device with tiny work-groups
        variant = get_variant("naive")
        params = {"wg_y": 1, "wg_x": 1}
    return variant.name, params, (f"shape class {own} ({why}); heuristic default (no "
                                  f"tuning entry for this device)")


def named_defaults(variant: str, device: Device, m: int, n: int, k: int,
                   itemsize: int) -> dict[str, Any] | None:
    """Parameters for a variant named without any, where a model chooses them for the
    device and shape (tallskinny: the occupancy model; phvm, basicmm: the paper's
    time-cost model); None where the variant's own defaults apply."""
    if variant == "tallskinny":
        return tallskinny_params(device, m, n, k, itemsize)[0]
    if variant in ("phvm", "basicmm"):
        from .phvm import constants_for, optimum

        gs, bs, _ = optimum(constants_for(device), m, n, k)
        return {"GS": gs, "BS": bs}
    return None
