"""xgemm: the tunable high-performance family (kernels_cl/xgemm.cl).

A work-group of MDIMC x NDIMC work-items computes an MWG x NWG tile of C, staging K slabs
of KWG in local memory (optionally double-buffered); each work-item keeps an
(MWG/MDIMC) x (NWG/NDIMC) block of C in registers. The kernel declares and documents
every parameter (its header comment, and one ``#ifndef`` default each): their names,
one-line descriptions (:data:`PARAMETERS`) and defaults are read from it.

In the common vocabulary (:data:`portgemm.families.base.COMMON_PARAMETERS`) ``wg_y`` /
``wg_x`` are MDIMC / NDIMC, ``tile_k`` is KWG, ``vw`` is VW, and ``tile_y`` / ``tile_x``
(the block of C per work-item, MWI / NWI) set MWG = tile_y * MDIMC and NWG = tile_x * NDIMC.

Defaults: a call with no parameters gets the preset of its device's type where it fits
(:meth:`XGemm.check`): :data:`GPU_DEFAULTS` (NVIDIA-style: 128 x 128 tiles, 16 x 16
work-items of 8 x 8 each, 128-bit loads, double buffering) on GPUs, :data:`CPU_DEFAULTS`
(for OpenCL CPU runtimes that vectorise across work-items, Intel's; quick to build) on
other devices. The class ``defaults`` (what ``resolve(None)`` and partial parameter sets
start from) are the kernel's own, :data:`PORTABLE_DEFAULTS`: CPU-style but small enough
for any device (256 work-items, 16 KB of local memory in float32).
"""

from __future__ import annotations

from typing import Any

from ..errors import ParameterError
from .base import (LaunchPlan, Params, Variant, as_count, restriction, split_along_k,
                   switches)
from .sources import kernel_parameters

SOURCE_FILE = "xgemm.cl"
PARAMETERS = {name: p.doc for name, p in kernel_parameters(SOURCE_FILE).items()}
PORTABLE_DEFAULTS = {name: p.int_default for name, p in kernel_parameters(SOURCE_FILE).items()}
# the common vocabulary's names that are one xgemm parameter each
ALIASES = {"wg_y": "MDIMC", "wg_x": "NDIMC", "tile_k": "KWG", "vw": "VW"}

VECTOR_WIDTHS = (1, 2, 4, 8)
FLAGS = ("PAD", "DOUBLE_BUFFER", "ASYNC_STAGES")  # the parameters that may be 0
ASYNC_DEPTHS = (0, 2, 3)

# NVIDIA-style: 128 x 128 tiles of 16 x 16 work-items with 8 x 8 each, 128-bit global and
# local reads, double buffering, the slab fully unrolled. On an H200 (NVIDIA OpenCL 3.0,
# driver 580.159) float32: 42.7 TFLOPS at n = 4096 (84% of cuBLAS's 50.9), 40.5 at 2048
# (85%), 19.2 at 1024 (64%); at 1024, MWG=128 NWG=64 ran at 26.8 (90-100%).
GPU_DEFAULTS = {"MWG": 128, "NWG": 128, "KWG": 16, "MDIMC": 16, "NDIMC": 16, "VW": 4,
                "VWM": 4, "VWN": 2, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 16,
                "KSPLIT": 1, "SWIZZLE": 1, "ASYNC_STAGES": 0}
# NVIDIA-style for small or thin C (the H200's tuned medium-class entry): 64 x 64 tiles of
# 8 x 8 work-items, several groups per compute unit; split-K shapes with C under 128 in a
# dimension take it (auto/splitk.py).
GPU_SMALL_DEFAULTS = {"MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4,
                      "VWM": 2, "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16,
                      "WARPN": 8, "KSPLIT": 1, "SWIZZLE": 1, "ASYNC_STAGES": 0}
# NVIDIA-style for a C of a few rows and columns over a long K (16 x 16 x 2^25): 16 x 16
# tiles of 8 x 8 work-items with 2 x 2 each, split along K a thousand ways; on the H200 it
# read A and B at 2x the speed of tallskinny's 8 x 16 register tiles.
GPU_TINY_DEFAULTS = {"MWG": 16, "NWG": 16, "KWG": 64, "MDIMC": 8, "NDIMC": 8, "VW": 4,
                     "VWM": 2, "VWN": 2, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16,
                     "WARPN": 8, "KSPLIT": 1, "SWIZZLE": 1, "ASYNC_STAGES": 0}
# For CPU runtimes that vectorise across work-items along dimension 0 (Intel's): scalar
# loads (VW = 1) and plain order (VWN = 1, WARPN = NDIMC) so the 16 lanes of a SIMD row
# read 16 consecutive floats; 4 x 4 accumulators a work-item; a deep K slab (barriers
# are costly there); builds in a fraction of a second.
CPU_DEFAULTS = {"MWG": 128, "NWG": 128, "KWG": 64, "MDIMC": 32, "NDIMC": 32, "VW": 1,
                "VWM": 1, "VWN": 1, "PAD": 0, "DOUBLE_BUFFER": 0, "KUNROLL": 4, "WARPN": 32,
                "KSPLIT": 1, "SWIZZLE": 1, "ASYNC_STAGES": 0}

# The same for AVX-512 (native float width 16, 32 vector registers): 8 x 3 accumulators a
# work-item, 256 x 96 tiles, slabs of 64. On a 2-core Xeon (Emerald Rapids) with Intel's
# runtime 1.2-1.6x CPU_DEFAULTS at 2048 and 4096 side by side with slabs of 128
# (bench/results/2026-11-22-cpu-xeon, "8 x 3 register blocks"), and slabs of 64 1.05-1.55x
# those (intel-slabs.txt); too many accumulators for AVX2's 16 registers, so only devices
# of width 16 get it.
CPU_AVX512_DEFAULTS = {"MWG": 256, "NWG": 96, "KWG": 64, "MDIMC": 32, "NDIMC": 32, "VW": 1,
                       "VWM": 1, "VWN": 1, "PAD": 0, "DOUBLE_BUFFER": 0, "KUNROLL": 8,
                       "WARPN": 32, "KSPLIT": 1, "SWIZZLE": 1, "ASYNC_STAGES": 0}


def _mwi(p: Params) -> int:
    return p["MWG"] // p["MDIMC"]


def _nwi(p: Params) -> int:
    return p["NWG"] // p["NDIMC"]


@restriction("VW, VWM and VWN must each be 1, 2, 4 or 8")
def _widths(p: Params) -> bool:
    return all(p[key] in VECTOR_WIDTHS for key in ("VW", "VWM", "VWN"))


@restriction("ASYNC_STAGES must be 0, 2 or 3, and 0 with DOUBLE_BUFFER = 1 (asynchronous "
             "copies are their own way of loading ahead)")
def _async(p: Params) -> bool:
    return p["ASYNC_STAGES"] in ASYNC_DEPTHS and not (p["ASYNC_STAGES"] and p["DOUBLE_BUFFER"])


@restriction("MWG must be a multiple of MDIMC * VWM (each work-item's rows come in runs of VWM)")
def _rows_split(p: Params) -> bool:
    return p["MWG"] % (p["MDIMC"] * p["VWM"]) == 0


@restriction("NWG must be a multiple of NDIMC * VWN (each work-item's columns come in runs "
             "of VWN)")
def _cols_split(p: Params) -> bool:
    return p["NWG"] % (p["NDIMC"] * p["VWN"]) == 0


@restriction("VW must divide MWG, NWG and KWG (tiles are loaded in vectors of VW)")
def _vectors_fit(p: Params) -> bool:
    return all(p[key] % p["VW"] == 0 for key in ("MWG", "NWG", "KWG"))


@restriction("the MDIMC * NDIMC work-items must load the tiles evenly: "
             "MWG*KWG/VW and KWG*NWG/VW must be multiples of MDIMC*NDIMC")
def _even_loads(p: Params) -> bool:
    items = p["MDIMC"] * p["NDIMC"]
    return all((x * p["KWG"] // p["VW"]) % items == 0 for x in (p["MWG"], p["NWG"]))


@restriction("WARPN must divide 32 and NDIMC, and unless WARPN = min(NDIMC, 32) (the plain "
             "order) 32/WARPN must divide MDIMC and 32 must divide MDIMC*NDIMC")
def _warp_patch(p: Params) -> bool:
    warpn, mdimc, ndimc = p["WARPN"], p["MDIMC"], p["NDIMC"]
    if 32 % warpn or ndimc % warpn:
        return False
    return warpn == min(ndimc, 32) or (mdimc % (32 // warpn) == 0
                                       and (mdimc * ndimc) % 32 == 0)


@restriction("KUNROLL must divide KWG")
def _unroll(p: Params) -> bool:
    return p["KWG"] % p["KUNROLL"] == 0


def local_elements(p: Params, a_colmajor: bool | None = None) -> int:
    """Elements of local memory the kernel declares (the same formula as xgemm.cl).

    The layout of A depends on A's order, known only at launch; ``None`` gives the larger
    of the two, which is what :meth:`XGemm.local_mem_bytes` checks against the device.
    """
    def round8(x: int) -> int:
        return -(-x // 8) * 8

    mwg, nwg, kwg, pad = p["MWG"], p["NWG"], p["KWG"], p["PAD"]
    kmajor_a = kwg * (mwg + pad * p["VWM"])
    rowmajor_a = mwg * (kwg + pad)
    if a_colmajor is None:
        a_size = max(kmajor_a, rowmajor_a) if p["VWM"] == 1 else kmajor_a
    else:
        a_size = kmajor_a if (a_colmajor or p["VWM"] > 1) else rowmajor_a
    b_size = kwg * (nwg + pad * p["VWN"])
    buffers = p.get("ASYNC_STAGES", 0) or 1 + p["DOUBLE_BUFFER"]
    return buffers * (round8(a_size) + round8(b_size))


class XGemm(Variant):
    name = "xgemm"
    source_file = SOURCE_FILE
    summary = ("local-memory tiles MWG x NWG x KWG, MWI x NWI registers per work-item, "
               "vector loads, optional double buffering")
    space = {  # about 1.2 million combinations, most of them invalid for a given device
        "MWG": [32, 64, 96, 128, 192, 256],  # 96, 192: blocks of 3 and 6 (AVX-512 CPUs)
        "NWG": [32, 64, 96, 128, 256],
        "KWG": [8, 16, 32, 64],
        "MDIMC": [8, 16, 32],
        "NDIMC": [8, 16, 32],
        "VW": [1, 2, 4],
        "VWM": [1, 2, 4],
        "VWN": [1, 2, 4],
        "PAD": [0, 1],
        "DOUBLE_BUFFER": [0, 1],
        "KUNROLL": [4, 8, 16],
        "WARPN": [8, 16, 32],
        "KSPLIT": [1],  # split-K is for shapes with few tiles of C: tune it there (--param)
        "SWIZZLE": [1],  # group order: a GPU knob for large C (--param SWIZZLE=1,4,8)
        "ASYNC_STAGES": [0],  # cp.async on NVIDIA: a GPU knob (--param ASYNC_STAGES=0,2,3)
    }
    defaults = dict(PORTABLE_DEFAULTS)
    flags = FLAGS
    restrictions = (_widths, switches("PAD", "DOUBLE_BUFFER"), _async, _rows_split,
                    _cols_split, _vectors_fit, _even_loads, _unroll, _warp_patch)

    presets = {"gpu": GPU_DEFAULTS, "cpu": CPU_DEFAULTS}

    def preset(self, device) -> dict[str, Any]:
        """The tuned starting point for a device's type ("gpu" or else "cpu")."""
        return dict(self.presets["gpu" if getattr(device, "type", "") == "gpu" else "cpu"])

    def presets_for(self, device, itemsize: int = 4) -> list[tuple[str, dict[str, Any]]]:
        """Every tuned starting point for the device's type (and element size), by name,
        the best first."""
        if getattr(device, "type", "") == "gpu":
            return [("gpu", dict(GPU_DEFAULTS)), ("gpu-small", dict(GPU_SMALL_DEFAULTS)),
                    ("gpu-tiny", dict(GPU_TINY_DEFAULTS))]
        # 24 float accumulators fill AVX-512's registers; in double they would take 48
        if getattr(device, "native_vector_width", 0) >= 16 and itemsize == 4:
            return [("cpu-avx512", dict(CPU_AVX512_DEFAULTS)), ("cpu", dict(CPU_DEFAULTS))]
        return [("cpu", dict(CPU_DEFAULTS))]

    def check(self, params: Params | None, device, itemsize: int = 4) -> dict[str, Any]:
        """As base.Variant.check; with no parameters given, the device type's preset
        (GPU_DEFAULTS or CPU_DEFAULTS) where it fits the device, else the portable
        class defaults."""
        if not params:
            preset = self.resolve(self.preset(device))
            if not self.problems(preset, device, itemsize):
                return preset
        return super().check(params, device, itemsize)

    def translate(self, params: Params) -> dict[str, Any]:
        """The common vocabulary in xgemm's names (see the module's docstring)."""
        native = dict(params)
        for common, own in ALIASES.items():
            if common in native:
                _set_once(native, own, native.pop(common), common)
        for common, own, items in (("tile_y", "MWG", "MDIMC"), ("tile_x", "NWG", "NDIMC")):
            if common in native:
                per_item = native.pop(common)
                count = as_count(per_item)  # numpy's integers too; resolve refuses the rest
                work_items = as_count(native.get(items, self.defaults[items]))
                if count is not None and work_items is not None:
                    per_item = count * work_items
                _set_once(native, own, per_item, common)
        return native

    @property
    def parameter_names(self) -> frozenset[str]:
        return frozenset(self.defaults) | frozenset(ALIASES) | {"tile_y", "tile_x"}

    def private_values(self, params: Params) -> int:
        """Accumulators, one slab row of operands, and the loads staged for local memory
        (none with asynchronous copies: they go from global to local memory directly)."""
        mwi, nwi, items = _mwi(params), _nwi(params), params["MDIMC"] * params["NDIMC"]
        staged = 0 if params.get("ASYNC_STAGES", 0) else \
            (params["MWG"] + params["NWG"]) * params["KWG"] // items
        return mwi * nwi + mwi + nwi + staged

    def work_group(self, params: Params) -> tuple[int, int]:
        return params["MDIMC"], params["NDIMC"]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return _mwi(params), _nwi(params)

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        return local_elements(params) * itemsize

    def defines(self, params: Params) -> dict:
        return {key: params[key] for key in PARAMETERS}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        """One work-group per MWG x NWG tile of C; with KSPLIT > 1, KSPLIT layers of them,
        each writing a partial product into the workspace, and a reduction into C."""
        params = self.effective(m, n, k, params)
        return split_along_k(super().plan(m, n, k, params, itemsize), m, n, params["KSPLIT"])

    def block(self, params: Params) -> tuple[int, int, int]:
        return params["MWG"], params["NWG"], params["KWG"]


def _set_once(params: dict, name: str, value: Any, alias: str) -> None:
    if name in params and params[name] != value:
        raise ParameterError(f"xgemm: {alias} sets {name} to {value!r}, but {name} is also "
                             f"given as {params[name]!r}")
    params[name] = value
