"""The choice of ``variant="auto"`` when no tuning database has an entry for the device,
and the parameters of a variant named without any: both from the device's properties
and the shape, through the models of this package."""

from __future__ import annotations

from typing import Any

from ..families import get_variant
from ..runtime.device import Device
from .compiler import compiler_kind
from .shapes import OWN_KERNEL_CLASSES, device_class
from .tallskinny import tallskinny_params
from .wide import wide_params


def default_choice(device: Device, m: int, n: int, k: int, itemsize: int,
                   layout: str = "CC") -> tuple[str, dict[str, Any], str]:
    """(variant, checked parameters, reason) from the device's properties alone (and the
    operands' layout, which the bandwidth models weigh)."""
    own, why = device_class(device, m, n, k, itemsize)
    if own in OWN_KERNEL_CLASSES:
        # a wide C's work-items run along N over rows of B, a tall one's along K; on a
        # CPU a work-item walks K with each row of its tile one vector either way
        wide = own == "skinny" and m <= n and device.type != "cpu"
        variant = "wide" if wide else "tallskinny"
        params, reason = BANDWIDTH_MODELS[variant](device, m, n, k, itemsize, layout)
        return variant, get_variant(variant).check(params, device, itemsize), (
            f"shape class {own} ({why}); {variant}, {reason}")
    for variant, params, reason in ordinary_candidates(device, itemsize):
        impl = get_variant(variant)
        resolved = impl.resolve(params)
        if not impl.problems(resolved, device, itemsize):
            return variant, resolved, (f"shape class {own} ({why}); no tuning entry for "
                                       f"this device: {reason}")
    return "naive", {"wg_y": 1, "wg_x": 1}, (f"shape class {own} ({why}); no tuning entry "
                                             f"for this device and no family fits it but "
                                             f"naive with 1 x 1 groups")


def ordinary_candidates(device: Device,
                        itemsize: int = 4) -> list[tuple[str, dict[str, Any], str]]:
    """(variant, parameters, why) for an ordinary shape, best first, by the device's
    compiler, SIMD width (:mod:`portgemm.auto.compiler`) and element size."""
    kind = compiler_kind(device)
    xgemm = get_variant("xgemm")
    if kind == "code-vectorising":
        if device.native_vector_width >= 16:  # AVX-512: 24 accumulators of 32 registers
            width, rows, runs = 16, 8, 3
        else:  # AVX2's 16 registers: 8 accumulators
            width, rows, runs = 8, 4, 2
        # half the rows for float64, whose vector of `width` takes two registers: 8 x 48
        # doubles held 48 of AVX-512's 32 (PoCL on a Xeon of model 207: 4 x 48 1.39-2.08x
        # faster at seven shapes of K = 65-1024, 8 x 24 in vectors of 8 0.74-1.90x;
        # bench/results/2026-11-27-cpu-xeon207-pocl-float64)
        rows = max(1, rows * 4 // itemsize)
        # a group of 32 work-items down M shares one panel of B in the caches (PoCL,
        # AVX-512: 1.2-1.5x faster than 2 x 4 from 2048 up, level below 1024;
        # bench/results/2026-11-23-cpu-pocl-groups)
        return [("vec", {"tile_y": rows, "tile_x": runs * width, "vw": width,
                         "wg_y": 32, "wg_x": 1, "PACKED": 1},
                 (f"{kind} compiler (PoCL): vec, {rows} x {runs * width} a work-item in "
                  f"vectors of {width} (the device's native width), groups of 32 "
                  f"work-items down M over one panel of B, B packed in panels"))]
    candidates = []
    if kind == "work-item-vectorising":
        params = panel_params(device, itemsize)
        candidates.append(("panel", params,
                           f"{kind} compiler: panel, a group one SIMD vector "
                           f"({params['wg_x']} work-items), {params['tile_y']} x "
                           f"{params['tile_x']} a work-item"))
    for name, params in xgemm.presets_for(device, itemsize):  # largest tiles first
        candidates.append(("xgemm", params, f"{kind} compiler: xgemm's {name} preset"))
        if params.get("DOUBLE_BUFFER"):  # half the local memory (32 KiB GPUs), same tiles
            candidates.append(("xgemm", {**params, "DOUBLE_BUFFER": 0},
                               (f"{kind} compiler: xgemm's {name} preset, single-buffered "
                                f"to fit {device.local_mem_size} bytes of local memory")))
    return candidates + [("inreg", get_variant("inreg").defaults,
                          "inreg's defaults (no xgemm preset fits the device)")]


def panel_params(device: Device, itemsize: int = 4) -> dict[str, Any]:
    """panel for a CPU runtime that vectorises across work-items: a work-group one SIMD
    vector of the native float width, and as many accumulators as the registers hold
    beside a step's vectors of B and a broadcast of A: 8 x 3 vectors of 32 (AVX-512,
    BLIS's Skylake-X tiles), 6 x 2 of 16 (AVX2 and narrower); half the rows for float64,
    whose work-group vector takes two registers (a group of half the width ran 6x slower
    on Intel's runtime: bench/results/2026-11-22-cpu-panel)."""
    lanes = device.native_vector_width if device.native_vector_width in (4, 8, 16) else 8
    rows, vectors = (8, 3) if lanes >= 16 else (6, 2)
    rows = max(1, rows * 4 // itemsize)
    return {**get_variant("panel").defaults, "tile_y": rows, "tile_x": vectors,
            "wg_x": lanes, "MB": 32 * rows}


# (parameters, why) of the kernels bound by memory, from the device, the shape and the
# layout: (device, m, n, k, itemsize, layout) -> (params, why)
BANDWIDTH_MODELS = {"tallskinny": tallskinny_params, "wide": wide_params}


def named_defaults(variant: str, device: Device, m: int, n: int, k: int,
                   itemsize: int, layout: str = "CC") -> dict[str, Any] | None:
    """Parameters for a variant named without any, where a model chooses them for the
    device and shape (tallskinny, wide: bandwidth models; phvm, basicmm: the paper's
    time-cost model); None where the variant's own defaults apply."""
    if variant in BANDWIDTH_MODELS:
        return BANDWIDTH_MODELS[variant](device, m, n, k, itemsize, layout)[0]
    if variant in ("phvm", "basicmm"):
        from .phvm import constants_for, optimum

        gs, bs, _ = optimum(constants_for(device), m, n, k)
        return {"GS": gs, "BS": bs}
    return None
