"""``python -m portgemm.tune --quick``: a tuned entry for an untuned device in under a
minute.

The family is the one ``auto`` would take on the device with no entry
(:func:`portgemm.auto.default.ordinary_candidates`: xgemm on GPUs and on CPU runtimes that
vectorise across work-items, vec on PoCL); its search space is a small neighbourhood of
that starting point (a few hundred points, which the model ranks), measured at one size,
1024^3 by default, the starting point first, until the budget runs out. The best
configuration becomes the device's entry for every size class (small, medium, large) at
the exact device level: ``auto`` then uses it at once.
"""

from __future__ import annotations

import datetime
from typing import Mapping

import numpy as np

from ..auto.compiler import compiler_kind
from ..auto.default import ordinary_candidates
from ..auto.shapes import SIZE_CLASSES
from ..families import get_variant
from ..runtime.device import Device
from .results import TuneResult
from .tuner import tune

QUICK_SIZE = 1024
QUICK_BUDGET_S = 45.0
# neighbourhoods of the starting points, by compiler kind
QUICK_SPACES: dict[str, Mapping[str, list]] = {
    "gpu": {"MWG": [64, 128], "NWG": [64, 128], "KWG": [16, 32], "MDIMC": [8, 16],
            "NDIMC": [8, 16], "VW": [2, 4], "VWM": [2, 4], "VWN": [2, 4], "PAD": [1],
            "DOUBLE_BUFFER": [0, 1], "KUNROLL": [16], "WARPN": [8, 16], "KSPLIT": [1],
            "SWIZZLE": [1]},
    "work-item-vectorising": {"MWG": [64, 128, 192, 256], "NWG": [64, 96, 128, 256],
                              "KWG": [32, 64, 128], "MDIMC": [16, 32], "NDIMC": [16, 32],
                              "VW": [1], "VWM": [1], "VWN": [1], "PAD": [0],
                              "DOUBLE_BUFFER": [0], "KUNROLL": [2, 4, 8], "WARPN": [16, 32],
                              "KSPLIT": [1], "SWIZZLE": [1]},
    "code-vectorising": {"tile_y": [4, 6, 8, 12], "tile_x": [16, 32, 48, 64], "vw": [8, 16],
                         "wg_y": [1, 2, 4], "wg_x": [1, 2, 4, 8]},
}


def quick_tune(device: Device, *, size: int = QUICK_SIZE, budget_s: float = QUICK_BUDGET_S,
               dtype="float32", progress: bool = True, cache_file=None) -> TuneResult:
    """Tune the device's own family around its starting point (see the module)."""
    variant, start, _ = ordinary_candidates(device, np.dtype(dtype).itemsize)[0]
    return tune(get_variant(variant), device, [size], space=QUICK_SPACES[compiler_kind(device)],
                strategy="model", fraction=1.0, budget_s=budget_s, reps=2, warmup=1,
                dtype=dtype, progress=progress, cache_file=cache_file, first=[start])


def quick_entries(result: TuneResult) -> list[dict]:
    """The best candidate as the entry of every size class (one size measured)."""
    if result.best is None:
        return []
    record = result.best.records[0]
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return [{"variant": result.variant, "shape_class": name, "dtype": result.dtype,
             "params": dict(result.best.params), "kernel_ms": round(record.kernel_ms, 6),
             "gflops": round(result.best.gflops, 3), "sizes": [list(record.size)],
             "strategy": f"quick ({result.strategy}, {result.elapsed_s:.0f} s)",
             "evaluated": len(result.ok), "tuned_at": stamp} for name in SIZE_CLASSES]
