"""Launches that copy A or B into contiguous panels before a GEMM kernel reads them
(kernels_cl/pack.cl): what ``panel`` and ``vec`` do with ``PACKED=1`` (B) and ``panel``
with ``PACK_A=1`` (A).

A work-item that walks a few columns of B along all of K reads rows ldb apart, which on
a CPU share a few L1 sets and each touch another page; packed, its panel is one run.
"""

from __future__ import annotations

from math import ceil

from ..errors import ParameterError
from ..runtime.ndrange import NDRange
from .base import INT_LIMIT, Step

PACK_STEPS = 256  # pack_b, pack_a: steps of K one work-group copies
PACK_LANES = 16   # work-items of a work-group, where the GEMM kernel sets no width
PACK_ROWS, PACK_PANELS = 16, 4  # pack_b_rows: a work-item's steps of K and panels


def pack_b_step(n: int, k: int, width: int, workspace: str, lanes: int = PACK_LANES,
                by_rows: bool = False) -> tuple[Step, int]:
    """(the launch, the workspace's element count) that packs B in panels of ``width``
    columns into ``workspace``: work-groups of ``lanes`` work-items across a step of a
    panel (pack.cl: pack_b, for compilers that vectorise across work-items), or with
    ``by_rows`` work-items of PACK_ROWS steps of PACK_PANELS panels in groups of
    ``lanes`` along K (pack_b_rows, for compilers that run them one after another)."""
    panels = ceil(n / width)
    elements = _within(panels * width * k, "B", "PACKED=0")
    args = ("N", "K", "B", "ldb", workspace)
    if not by_rows:
        return _step("pack_b", panels, k, lanes, {"PACK_WIDTH": width}, args), elements
    defines = (("PACK_LANES", lanes), ("PACK_PANELS", PACK_PANELS), ("PACK_ROWS", PACK_ROWS),
               ("PACK_WIDTH", width))
    ndrange = NDRange.covering((ceil(panels / PACK_PANELS), ceil(k / PACK_ROWS)), (1, lanes))
    return Step(ndrange, defines, "pack_b_rows", "pack.cl", args), elements


def pack_a_step(m: int, k: int, height: int, workspace: str,
                lanes: int = PACK_LANES) -> tuple[Step, int]:
    """(the launch, the workspace's element count) that packs A in panels of ``height``
    rows into ``workspace``."""
    panels = ceil(m / height)
    return _step("pack_a", panels, k, lanes, {"PACK_HEIGHT": height},
                 ("M", "K", "A", "lda", workspace)), \
        _within(panels * height * k, "A", "PACK_A=0")


def _step(kernel: str, panels: int, k: int, lanes: int, shape: dict, args: tuple) -> Step:
    defines = tuple(sorted({**shape, "PACK_LANES": lanes, "PACK_STEPS": PACK_STEPS}.items()))
    ndrange = NDRange((ceil(k / PACK_STEPS), panels * lanes), (1, lanes))
    return Step(ndrange, defines, kernel, "pack.cl", args)


def _within(elements: int, name: str, instead: str) -> int:
    if elements > INT_LIMIT:
        raise ParameterError(f"{name} packed in panels ({elements} values) exceeds the "
                             f"kernels' 32-bit index limit {INT_LIMIT}; use {instead}")
    return elements
