"""wgmma: float32 on Hopper's warpgroup tensor-core instruction (kernels_cl/wgmma.cl).

A work-group of ``WGM`` x ``WGN`` warpgroups (128 work-items each) computes a (64 ``WGM``) x
(``WN`` ``WGN``) tile of C; each warpgroup runs PTX's ``wgmma.mma_async.m64nWNk8.tf32`` on
its 64 x ``WN`` block, A from registers, B from local memory, three times a step of 8 of
K: "3xTF32", the operands' high and low TF32 parts, as in :mod:`.mma`, with float32's
accuracy (docs/known-issues.md: infinite inputs). Slabs of 8 ``KS`` steps of K are
staged in local memory, double-buffered.

The instruction exists only for sm_90a (H100, H200), which NVIDIA's OpenCL compiler does
not target: portgemm rebuilds the program from its edited PTX (:mod:`..runtime.ptx`).
Everywhere else the kernel multiplies the same tiles with multiply-adds: correct, slow.
float32 only: wgmma has no float64 form (:mod:`.mma` has, on the FP64 tensor cores).
"""

from __future__ import annotations

from ..runtime.device import Device
from .base import LaunchPlan, Params, Variant, restriction, tiles_along_n


def _tile(p: Params) -> tuple[int, int, int, int]:
    """(work-items, BM, BN, BK) of a parameter set."""
    return 128 * p["WGM"] * p["WGN"], 64 * p["WGM"], p["WN"] * p["WGN"], 8 * p["KS"]


@restriction("WN must be 32, 48, 64, 80, 96 or 128: the wgmma shapes the kernel spells out")
def _spelled_out(p: Params) -> bool:
    return p["WN"] in (32, 48, 64, 80, 96, 128)


@restriction("4 KS / WGN and KS WN / (16 WGM), the values of A and of B a work-item "
             "stages per slab, must each be a whole even number: they are staged in runs "
             "of 2 or 4 (else part of a slab is never staged)")
def _even_runs(p: Params) -> bool:
    wg, bm, bn, bk = _tile(p)
    return all(values % (2 * wg) == 0 for values in (bm * bk, bk * bn))


@restriction("LEAD must be 1 or 2: the slabs of K the kernel reads ahead")
def _lead(p: Params) -> bool:
    return p["LEAD"] in (1, 2)


@restriction("PAD must be a multiple of 4: a row-major A's runs of 4 are stored as vectors")
def _vector_rows(p: Params) -> bool:
    return p["PAD"] % 4 == 0


# a 128 x 64 tile for a C whose short side pads the tuned 128 x 128 tile (auto's fitting
# tile weighs it on sm_90: on an H100 it ran C of 32-64 columns 1.2-1.6x faster than the
# 128 x 128 entry; bench/results/2026-11-26-hopper-narrow-tiles)
NARROW = {"WN": 64, "WGM": 2, "WGN": 1, "KS": 2, "PAD": 0, "LEAD": 2}
# and a 64 x 32 tile (one warpgroup) for a C of 25-32 columns, which the 128 x 64 tile pads
# 2x: on an H100 1.11-1.34x faster than it at four shapes; a 64 x 48 tile gained nothing
# at 40-48 columns (bench/results/2026-11-26-hopper-fitted-tiles)
NARROW_32 = dict(NARROW, WN=32, WGM=1)
# and a 64 x 64 tile (one warpgroup), which auto takes in place of xgemm's 64 x 64 at a K
# of at most 65536 (choice.SQUARE_64_MOST_K)
SQUARE_64 = dict(NARROW, WGM=1)


def runs_wgmma(device: Device) -> bool:
    """Whether the kernel runs the instruction itself (sm_90, wgmma.cl's WGMMA_PTX)."""
    return device.takes_ptx and device.compute_capability == (9, 0)


class Wgmma(Variant):
    name = "wgmma"
    source_file = "wgmma.cl"
    summary = ("warpgroups of 64 x N x 8 wgmma on Hopper's tensor cores, float32 as 3xTF32 "
               "(elsewhere the same tiles with multiply-adds)")
    # split-K is for shapes with few tiles of C: auto's model sets it
    space = {"WN": [64, 128], "WGM": [1, 2], "WGN": [1, 2], "KS": [1, 2, 4], "PAD": [0, 4],
             "LEAD": [1, 2], "KSPLIT": [1]}
    defaults = {"WN": 64, "WGM": 1, "WGN": 1, "KS": 2, "PAD": 4, "LEAD": 2, "KSPLIT": 1}
    flags = ("PAD",)
    restrictions = (_spelled_out, _vector_rows, _even_runs, _lead)

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, _tile(params)[0]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return 2, params["WN"] // 4  # WN / 2 values of C a work-item

    def private_values(self, params: Params) -> int:
        """Accumulators and the slab's partial sums, A's fragments (two parts a step),
        the next slab's staged values."""
        wg, bm, bn, bk = _tile(params)
        return params["WN"] + 8 * params["KS"] + (bm * bk + bk * bn) // wg

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        """Two buffers of A (m-major, padded rows) and of B's two TF32 parts."""
        _, bm, bn, bk = _tile(params)
        return 2 * (bm * (bk + params["PAD"]) + 2 * bk * bn) * 4

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        found = super().problems(params, device, itemsize)
        if itemsize != 4:
            found.append("wgmma is float32 only: the instruction has no float64 form "
                         "(variant 'mma' runs float64 on the FP64 tensor cores)")
        return found

    def defines(self, params: Params) -> dict:
        return {key: params[key] for key in ("WN", "WGM", "WGN", "KS", "PAD", "LEAD", "KSPLIT")}

    def presets_for(self, device: Device, itemsize: int = 4) -> list[tuple[str, dict]]:
        """Where the instruction runs, in float32: the narrow tiles (NARROW, NARROW_32)."""
        if itemsize != 4 or not runs_wgmma(device):
            return []
        return [("narrow", dict(NARROW)), ("narrow-32", dict(NARROW_32))]

    def block(self, params: Params) -> tuple[int, int, int]:
        return _tile(params)[1:]

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        return tiles_along_n(self, m, n, k, params, itemsize)
