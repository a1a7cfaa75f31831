"""mma: NVIDIA's tensor cores through PTX's ``mma.sync`` (kernels_cl/mma.cl).

A work-group of ``WM`` x ``WN`` warps computes a (16 ``MT`` ``WM``) x (8 ``NT`` ``WN``) tile of
C, each warp ``MT`` x ``NT`` tiles of 16 x 8 with ``mma.sync.m16n8k8`` per tile and step of
8 of K; slabs of 8 ``KS`` steps of K are staged in local memory, through registers
(``BUFFERS`` 2: double-buffered) or, in float64 with ``ASYNC_STAGES`` 2-4, by
asynchronous copies that many slabs deep (``cp.async`` on NVIDIA; with ``B_BULK`` B's
slabs inside C by bulk copies, Hopper's TMA engine); in float32 ``SUMS``
steps at a time are summed on the tensor cores before float32 accumulators take them.
``KSPLIT`` > 1 cuts K into that many runs, one layer of work-groups each, whose partial
products are summed in order (kernels_cl/splitk.h): for a C of too few tiles to fill the
device (auto's split-K model sets it, :mod:`portgemm.auto.splitk`).

- float64: one ``.f64`` mma a tile and step, on the FP64 tensor cores from compute
  capability 9.0 (about twice the FP64 FMA peak of an H100 or H200).
- float32: "3xTF32", three ``.tf32`` mma's of the operands' high and low TF32 parts (split
  as they are staged), from compute capability 8.0: float32's accuracy on the TF32 tensor
  cores (docs/known-issues.md says where it differs from IEEE float32: infinities).

Elsewhere the kernel multiplies the same fragments (and the same TF32 parts) with
multiply-adds through local memory: correct everywhere, fast only there.
"""

from __future__ import annotations

from ..runtime.device import Device
from .base import (LaunchPlan, Params, Variant, pocl_5_or_later, restriction,
                   tiles_along_n)


TENSOR_CORES_FROM = {8: (9, 0), 4: (8, 0)}  # itemsize: compute capability (mma.cl's MMA_PTX)
REGISTER_OVERHEAD = 48  # a work-item's addresses, indices and copies in flight beside its values
# tall tiles for a C of few columns on the FP64 tensor cores: 4 warps down M, each 32
# rows by as many columns as the tile (auto's fitting tile weighs them for a narrow
# float64 C, split along K by its model; on an H100 the 128 x 32 tile ran a C of 20-32
# columns 1.2-2.1x faster than the 64 x 64 and 64 x 128 entries), in slabs of 16 steps
# of K, two copied ahead (on an H100 1.01-1.37x faster than slabs of 8, three ahead, at 13
# of 15 shapes, most where C has many tiles and K is short:
# bench/results/2026-11-26-hopper-narrow-tiles). Every width from 16 to 56 columns in
# steps of 8, since the padding of C costs the tensor cores in full: at 20-24 columns
# 128 x 24 ran 1.04-1.22x faster than 128 x 32, at 36-40 columns 128 x 40 ran 1.17x faster
# than 128 x 48 and 1.38-1.50x than the 64 x 64 entry, at 52-56 columns 128 x 56 (48 KiB
# of slabs, the most there is) 1.13-1.27x (bench/results/2026-11-26-hopper-fitted-tiles);
# 57-64 columns stay with 64 x 64 (128 x 64 in slabs of 8 ran 1.04-1.11x slower there).
TALL_FLOAT64 = {"WM": 4, "WN": 1, "MT": 2, "NT": 2, "KS": 2, "PAD": 4, "ASYNC_STAGES": 2}
TALL_WIDTHS = (16, 24, 32, 40, 48, 56)


def tall_float64(width: int) -> dict:
    """The tall float64 tile 128 rows by ``width`` columns (a multiple of 8)."""
    return dict(TALL_FLOAT64, NT=width // 8)


# their mirror for a C of few rows: one warp down M, 4 across N, each 16 or 32 rows by 32
# columns (on an H100 1.5-2.3x faster than the wide kernel at 8-32 x 4096 x 4096); in
# float32 (3xTF32), whose copies cannot run ahead, 1.1-1.5x at 16-32 rows
WIDE_FLOAT64 = dict(TALL_FLOAT64, WM=1, WN=4, MT=1, NT=4)
WIDE_32_FLOAT64 = dict(WIDE_FLOAT64, MT=2)
WIDE_FLOAT32 = dict(WIDE_FLOAT64, ASYNC_STAGES=0)
WIDE_32_FLOAT32 = dict(WIDE_32_FLOAT64, ASYNC_STAGES=0)
# a 64 x 96 tile (2 x 2 warps of 32 x 48) for a float64 C wider than the tall tiles over
# a deep K (auto's fitting tile takes it at 170-192 columns): on an H100 8192 x 170-192 x
# 4096-8192, 4096 x 176 x 8192 and 16384 x 184 x 4096 ran 1.26-1.50x faster in it than
# in four 128 x 48 tiles across C, each of which reads all of A from memory
# (bench/results/2026-11-26-h100-medium-n)
MEDIUM_FLOAT64 = {"WM": 2, "WN": 2, "MT": 2, "NT": 6, "KS": 1, "PAD": 4, "ASYNC_STAGES": 3}
SKINNY_TILES_FROM = (9, 0)  # where the tall and wide tiles were measured: Hopper


def emulated(device: Device, itemsize: int) -> bool:
    """Whether the kernel multiplies the fragments with multiply-adds on ``device``: all
    but NVIDIA GPUs of compute capability 9.0 (float64) or 8.0 (float32) and later."""
    capability = device.compute_capability or (0, 0)
    return not (device.takes_ptx and capability >= TENSOR_CORES_FROM[itemsize])


def skinny_tiles(device: Device, itemsize: int) -> bool:
    """Whether auto offers the tensor cores' tall and wide tiles on ``device``: where they
    run the element size, from SKINNY_TILES_FROM (float32's from 8.0 untried)."""
    capability = device.compute_capability or (0, 0)
    return not emulated(device, itemsize) and capability >= SKINNY_TILES_FROM


def _tile(p: Params) -> tuple[int, int, int, int]:
    """(work-items, BM, BN, BK) of a parameter set."""
    return 32 * p["WM"] * p["WN"], 16 * p["MT"] * p["WM"], 8 * p["NT"] * p["WN"], 8 * p["KS"]


def parts(itemsize: int) -> int:
    """Values staged per element: float32 stores its high and low TF32 parts."""
    return 2 if itemsize == 4 else 1


@restriction("SUMS must divide KS: a slab's steps are summed SUMS at a time")
def _sums_divide_slab(p: Params) -> bool:
    return p["KS"] % p["SUMS"] == 0


def _held(p: Params, value_parts: int) -> int:
    """A work-item's accumulators and its fragments of SUMS steps, ``value_parts`` parts a
    value."""
    mt, nt = p["MT"], p["NT"]
    return 4 * mt * nt + p["SUMS"] * value_parts * (4 * mt + 2 * nt)


ASYNC_DEPTHS = (0, 2, 3, 4)


def tiles(p: Params) -> int:
    """Slabs in local memory at once: the asynchronous stages, or the register path's
    buffers."""
    return p["ASYNC_STAGES"] or p["BUFFERS"]


@restriction("BUFFERS must be 1 or 2 (the register path's slab is the other of two: a "
             "third was never read, C wrong), ASYNC_STAGES 0, 2, 3 or 4, and BUFFERS 2 "
             "beside a nonzero one (the stages are the buffers then)")
def _async_depth(p: Params) -> bool:
    return (p["BUFFERS"] in (1, 2) and p["ASYNC_STAGES"] in ASYNC_DEPTHS
            and not (p["ASYNC_STAGES"] and p["BUFFERS"] != 2))


@restriction("PAD must be even: float64 reads a lane's values of A in 16-byte pairs, "
             "and copies B in 16-byte pieces")
def _even_pad(p: Params) -> bool:
    return p["PAD"] % 2 == 0


@restriction("B_BULK must be 0 or 1, and 1 only beside a nonzero ASYNC_STAGES (the bulk "
             "copies are one of the pipeline's ways to stage a slab)")
def _bulk_with_stages(p: Params) -> bool:
    return p["B_BULK"] in (0, 1) and not (p["B_BULK"] and not p["ASYNC_STAGES"])


@restriction("the work-group must stage each slab evenly: BM * BK and BK * BN are "
             "multiples of its 32 * WM * WN work-items")
def _even_staging(p: Params) -> bool:
    wg, bm, bn, bk = _tile(p)
    return (bm * bk) % wg == 0 and (bk * bn) % wg == 0


class Mma(Variant):
    name = "mma"
    source_file = "mma.cl"
    summary = ("warps of 16 x 8 x 8 mma.sync on NVIDIA's tensor cores (float64; float32 as "
               "3xTF32; elsewhere the same fragments with multiply-adds)")
    space = {"WM": [1, 2, 4], "WN": [1, 2, 4], "MT": [1, 2, 4], "NT": [2, 4, 8],
             "KS": [1, 2], "PAD": [0, 4, 8], "SUMS": [1, 2],
             "BUFFERS": [1, 2], "ASYNC_STAGES": [0, 3], "B_BULK": [0, 1],
             "KSPLIT": [1]}  # split-K is for a C of few tiles: auto's model sets it
    defaults = {"WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "PAD": 8, "SUMS": 1, "BUFFERS": 2,
                "ASYNC_STAGES": 0, "B_BULK": 0, "KSPLIT": 1}
    flags = ("PAD", "ASYNC_STAGES", "B_BULK")
    restrictions = (_even_staging, _sums_divide_slab, _async_depth, _even_pad,
                    _bulk_with_stages)

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, _tile(params)[0]

    def elements_per_item(self, params: Params) -> tuple[int, int]:
        return 2 * params["MT"], 2 * params["NT"]  # 4 MT NT values of C a work-item

    def private_values(self, params: Params) -> int:
        """Accumulators, fragments (float32's two parts of SUMS steps: the upper bound),
        and on the register path the next slab's staged values."""
        wg, bm, bn, bk = _tile(params)
        staged = 0 if params["ASYNC_STAGES"] else (bm * bk + bk * bn) // wg
        return _held(params, 2) + staged

    def registers(self, params: Params, itemsize: int = 4) -> int:
        """Accumulators and one step's fragments (float32: both parts), a double two
        registers, and REGISTER_OVERHEAD: float64's 64 x 128 tile with copies 3 deep
        builds to 226 registers (ptxas, bench/results/2026-11-26-h100-mma-async), two
        groups an SM; the 64 x 64 tile to 156 (144 here), three; the tall 128 x 16 to 96
        (104 here), five (bench/gpu/kernel_registers.py, 2026-11-26-h100-store-pairs)."""
        return max(1, itemsize // 4) * _held(params, parts(itemsize)) + REGISTER_OVERHEAD

    def local_mem_bytes(self, params: Params, itemsize: int, emulated: bool = True) -> int:
        """The tiles (:func:`tiles` of them; float32: both parts), and where the fragments
        are multiplied with multiply-adds (``emulated``) each warp's scratch for them,
        elsewhere the bulk copies' barrier objects."""
        _, bm, bn, bk = _tile(params)
        slabs = tiles(params) * parts(itemsize) * bk * (bm + bn + 2 * params["PAD"])
        scratch = params["WM"] * params["WN"] * (params["MT"] * 16 + params["NT"] * 8) * 8
        # the bulk copies' barrier objects, on the tensor cores' devices (elsewhere the
        # plain copies leave them unused)
        barriers = 0 if emulated else 8 * params["ASYNC_STAGES"] * params["B_BULK"]
        return (slabs + (scratch if emulated else 0)) * itemsize + barriers

    def local_mem_bytes_on(self, device: Device, params: Params, itemsize: int) -> int:
        return self.local_mem_bytes(params, itemsize, emulated(device, itemsize))

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        found = super().problems(params, device, itemsize)
        if params["ASYNC_STAGES"] and itemsize != 8:
            found.append("ASYNC_STAGES needs float64: float32's values are split into their "
                         "TF32 parts as they are staged, which a copy cannot do")
        if pocl_5_or_later(device):
            found.append("PoCL 5 leaves columns of C unwritten in mma's emulated fragments "
                         "(in some tilings and layouts, not the same from run to run), where "
                         "PoCL 3 and Intel's runtime are right "
                         "(bench/results/2026-11-22-h200-fp64-tensor/mma_pocl5.txt)")
        return found

    def defines(self, params: Params) -> dict:
        return {key: params[key] for key in ("WM", "WN", "MT", "NT", "KS", "PAD", "SUMS",
                                            "BUFFERS", "ASYNC_STAGES", "B_BULK", "KSPLIT")}

    def presets_for(self, device, itemsize: int = 4) -> list[tuple[str, dict]]:
        """Where the tensor cores run the element size (skinny_tiles): in float64 the
        tall tiles, 128 rows by each of TALL_WIDTHS, the wide ones, 16 x 128 and
        32 x 128, and the medium 64 x 96; in float32 the wide ones."""
        if not skinny_tiles(device, itemsize):
            return []
        if itemsize == 4:
            return [("wide", dict(WIDE_FLOAT32)), ("wide-32", dict(WIDE_32_FLOAT32))]
        return [(f"tall-{width}", tall_float64(width)) for width in TALL_WIDTHS] + [
                ("wide", dict(WIDE_FLOAT64)), ("wide-32", dict(WIDE_32_FLOAT64)),
                ("medium", dict(MEDIUM_FLOAT64))]

    def block(self, params: Params) -> tuple[int, int, int]:
        return _tile(params)[1:]

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        return tiles_along_n(self, m, n, k, params, itemsize)
