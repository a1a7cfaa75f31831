"""Where the command line's search starts (its warm start): the parameter sets measured
before the search's own, so that what it saves is never slower, in its own timings,
than what ``auto`` and a named variant would run without it.

In order: the tuning databases' entries for the variant on this device (earlier
tunings), its per-device preset (xgemm), the models' choice for each size (what
``variant="auto"`` runs with no database where it picks this variant, and a named
variant's own model: tallskinny's and wide's bandwidth models, the paper's for phvm),
and the variant's defaults. A model's choice need not lie in the variant's space
(tallskinny's tile is fitted to C: 8 x 15 for a C of 100 columns); the tuner measures
it all the same (:func:`portgemm.tune.tuner.tune`'s ``first``).
"""

from __future__ import annotations

from typing import Sequence

from ..auto import choose
from ..auto.default import named_defaults, ordinary_candidates
from ..families import get_variant
from ..families.base import Variant
from ..runtime.device import Device
from .results import Size
from .save import known_params


def model_params(device: Device, variant: str, sizes: Sequence[Size],
                 itemsize: int = 4) -> list[dict]:
    """The models' parameters for ``variant`` (no database read), resolved, each set
    once: at each of ``sizes`` auto's choice where it is this variant and the variant's
    own model's, then the device's ordinary candidates of this variant."""
    impl = get_variant(variant)
    sets = []
    for m, n, k in sizes:
        model = choose(device, m, n, k, itemsize, sources=())
        sets += [model.params] if model.variant == variant else []
        sets += [named_defaults(variant, device, m, n, k, itemsize) or {}]
    sets += [params for name, params, _ in ordinary_candidates(device, itemsize)
             if name == variant]
    found = []
    for params in filter(None, sets):
        resolved = impl.resolve(params)
        if resolved not in found:
            found.append(resolved)
    return found


def warm_start(device: Device, variant: Variant, sizes: Sequence[Size],
               itemsize: int = 4) -> list[dict]:
    """The parameter sets a tuning run of ``variant`` measures first (see the module)."""
    first = known_params(device, variant.name, itemsize)
    preset = getattr(variant, "preset", None)
    first += [preset(device)] if callable(preset) else []
    first += model_params(device, variant.name, sizes, itemsize)
    first.append(dict(variant.defaults))
    return first
