"""PTX that NVIDIA's OpenCL compiler cannot emit itself: instructions of the sm_90a target.

The compiler targets sm_90 on an H100 or H200, and Hopper's warpgroup MMA (``wgmma``)
exists only for sm_90a. A kernel writes such instructions as PTX comments that begin
with :data:`SM90A_MARK` (inline assembly keeps its operands substituted in them); after
the build, :func:`for_sm90a` removes the marks and retargets the PTX, and the program is
rebuilt from that text as a binary (the driver's JIT takes PTX). bench/gpu/wgmma_probe.py
checked the route on an H200.
"""

from __future__ import annotations

import re

SM90A_MARK = "//sm_90a:"  # kernels_cl/wgmma.cl's SM90A
_TARGET = re.compile(r"^(\s*\.target\s+)sm_90\b", re.MULTILINE)


def needs_sm90a(ptx: str) -> bool:
    return SM90A_MARK in ptx


def for_sm90a(ptx: str) -> str:
    """The PTX with its marked comments made instructions and the target sm_90a; a
    ValueError when it targets something else (the instructions exist only there)."""
    if not _TARGET.search(ptx):
        found = re.search(r"^\s*\.target\s+(\S+)", ptx, re.MULTILINE)
        raise ValueError(f"sm_90a instructions in PTX for {found.group(1) if found else '?'}:"
                         " they run only on compute capability 9.0")
    return _TARGET.sub(r"\1sm_90a", ptx).replace(SM90A_MARK, "")
