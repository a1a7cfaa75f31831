"""mma: float64 on NVIDIA's FP64 tensor cores through PTX's ``mma.sync`` (kernels_cl/mma.cl).

A work-group of ``WM`` x ``WN`` warps computes a (16 ``MT`` ``WM``) x (8 ``NT`` ``WN``) tile of
C, each warp ``MT`` x ``NT`` tiles of 16 x 8 with one ``mma.sync.m16n8k8.f64`` per tile and
step of 8 of K; slabs of 8 ``KS`` steps of K are staged in local memory, double-buffered.
On NVIDIA devices in float64 that instruction runs on the tensor cores (about twice the
FP64 FMA peak on an H100 or H200); elsewhere, and in float32, the kernel multiplies the
same fragments with multiply-adds through local memory: correct everywhere, fast only
there.
"""

from __future__ import annotations

from math import ceil

from ..runtime.device import Device
from ..runtime.ndrange import NDRange
from .base import LaunchPlan, Params, Variant, pocl_5_or_later, restriction


def emulated(device: Device, itemsize: int) -> bool:
    """Whether the kernel multiplies the fragments with multiply-adds on ``device``: all
    but float64 on NVIDIA GPUs of compute capability 9.0 and later (kernels_cl/mma.cl's
    MMA_PTX)."""
    capability = device.compute_capability or (0, 0)
    return not (device.takes_ptx and itemsize == 8 and capability >= (9, 0))


def _tile(p: Params) -> tuple[int, int, int, int]:
    """(work-items, BM, BN, BK) of a parameter set."""
    return 32 * p["WM"] * p["WN"], 16 * p["MT"] * p["WM"], 8 * p["NT"] * p["WN"], 8 * p["KS"]


@restriction("the work-group must stage each slab evenly: BM * BK and BK * BN are "
             "multiples of its 32 * WM * WN work-items")
def _even_staging(p: Params) -> bool:
    wg, bm, bn, bk = _tile(p)
    return (bm * bk) % wg == 0 and (bk * bn) % wg == 0


class Mma(Variant):
    name = "mma"
    source_file = "mma.cl"
    summary = ("warps of 16 x 8 x 8 mma.sync on NVIDIA's FP64 tensor cores (float64; "
               "elsewhere the same fragments with multiply-adds)")
    space = {"WM": [1, 2, 4], "WN": [1, 2, 4], "MT": [1, 2, 4], "NT": [2, 4, 8],
             "KS": [1, 2], "PAD": [0, 8]}
    defaults = {"WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "PAD": 8}
    flags = ("PAD",)
    restrictions = (_even_staging,)

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, _tile(params)[0]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return 2 * params["MT"], 2 * params["NT"]  # 4 MT NT values of C a work-item

    def private_values(self, params: Params) -> int:
        wg, bm, bn, bk = _tile(params)
        mt, nt = params["MT"], params["NT"]
        return 4 * mt * nt + 4 * mt + 2 * nt + (bm * bk + bk * bn) // wg

    def local_mem_bytes(self, params: Params, itemsize: int, emulated: bool = True) -> int:
        """The double-buffered tiles, and where the fragments are multiplied with
        multiply-adds (``emulated``) each warp's scratch for them."""
        _, bm, bn, bk = _tile(params)
        tiles = 2 * bk * (bm + params["PAD"]) + 2 * bk * (bn + params["PAD"])
        scratch = params["WM"] * params["WN"] * (params["MT"] * 16 + params["NT"] * 8) * 8
        return (tiles + (scratch if emulated else 0)) * itemsize

    def local_mem_bytes_on(self, device: Device, params: Params, itemsize: int) -> int:
        return self.local_mem_bytes(params, itemsize, emulated(device, itemsize))

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        found = super().problems(params, device, itemsize)
        if pocl_5_or_later(device):
            found.append("PoCL 5 leaves columns of C unwritten in mma's emulated fragments "
                         "(in some tilings and layouts, not the same from run to run), where "
                         "PoCL 3 and Intel's runtime are right "
                         "(bench/results/2026-11-22-h200-fp64-tensor/mma_pocl5.txt)")
        return found

    def defines(self, params: Params) -> dict:
        return {key: params[key] for key in ("WM", "WN", "MT", "NT", "KS", "PAD")}

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        wg, bm, bn, _ = _tile(params)
        ndrange = NDRange((ceil(m / bm), ceil(n / bn) * wg), (1, wg))
        return LaunchPlan(ndrange, self.checked_defines(params),
                          self.local_mem_bytes(params, itemsize))
