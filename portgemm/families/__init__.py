"""The OpenCL GEMM kernel families and the registry of their variants.

``get_variant(name)`` and ``variant_names(device)`` answer from :data:`REGISTRY`;
``register(variant)`` adds one. The kernels themselves are the files of ``kernels_cl/``
(:mod:`portgemm.families.sources`).
"""

from __future__ import annotations

from ..errors import ParameterError
from .base import COMMON_PARAMETERS, LaunchPlan, Restriction, Step, Variant, restriction
from .local import Local
from .mma import Mma
from .naive import Naive
from .panel import Panel
from .phvm import BasicMM, Phvm
from .tallskinny import TallSkinny
from .tiled import Inreg, Tiled
from .vec import Vec
from .wgmma import Wgmma
from .wide import Wide
from .xgemm import XGemm

REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    """Add a variant (an instance) under its name; later lookups find it."""
    REGISTRY[variant.name] = variant
    return variant


def get_variant(name: str) -> Variant:
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown variant {name!r}; registered variants: "
                             f"{', '.join(REGISTRY)}") from None


def variant_names(device=None) -> list[str]:
    """Names of the registered variants whose default parameters run on ``device``: none
    on a PoCL whose builds are refused (runtime/pocl_target.py)."""
    from ..runtime import pocl_target

    if device is None:
        return list(REGISTRY)
    if pocl_target.refusal(device):
        return []
    return [name for name, v in REGISTRY.items() if not v.problems(v.resolve(None), device)]


for _variant in (Naive(), Tiled(), Inreg(), Local(), Vec(), XGemm(), Panel(), Mma(),
                 Wgmma(), TallSkinny(), Wide(), Phvm(), BasicMM()):
    register(_variant)

__all__ = ["COMMON_PARAMETERS", "LaunchPlan", "REGISTRY", "Restriction", "Step", "Variant",
           "get_variant", "register", "restriction", "variant_names"]
