"""The GEMM variant registry: ``get_variant(name)``, ``variants(device)``, ``register``."""

from __future__ import annotations

from ..errors import ParameterError
from .base import LaunchPlan, Restriction, Variant, kernel_source, restriction
from .local import Local
from .naive import Naive
from .register_tiled import InputRegisters, Tiled
from .xgemm import XGemm

REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    """Add a variant (an instance) under its name; later lookups find it."""
    REGISTRY[variant.name] = variant
    return variant


def get_variant(name: str) -> Variant:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParameterError(f"unknown variant {name!r}; registered variants: "
                             f"{', '.join(REGISTRY)}") from None


def variant_names(device=None) -> list[str]:
    """Names of the registered variants whose default parameters run on ``device``."""
    if device is None:
        return list(REGISTRY)
    return [name for name, v in REGISTRY.items() if not v.problems(v.resolve(None), device)]


for _variant in (Naive(), Tiled(), InputRegisters(), Local(), XGemm()):
    register(_variant)

__all__ = ["LaunchPlan", "REGISTRY", "Restriction", "Variant", "get_variant", "kernel_source",
           "register", "restriction", "variant_names"]
