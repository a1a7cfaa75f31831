"""phvm and basicmm: the paper's kernels for a horizontal times a vertical matrix (seed 001).

One kernel family (kernels_cl/phvm.cl), two variants that differ only in how a work-item
takes its share of K: ``phvm`` with grid-stride, coalesced loads, ``basicmm`` with a
contiguous segment. GS work-groups of BS work-items compute one element of C after the
other; each group adds its sum into C with one atomic add (so C starts at zero and the
last bits of C vary from run to run). GS and BS are the paper's names; the time-cost
model that chooses them is :mod:`portgemm.auto.phvm`. ``ELEMENT_LAUNCHES=1`` runs the
paper's Algorithm 1 as written, one launch (one whole-grid inner product) per element of
C, which is what that model charges; the default runs them all in one launch.
"""

from __future__ import annotations

from math import ceil

from ..errors import ParameterError
from ..runtime.device import Device
from ..runtime.ndrange import NDRange
from .base import (GEMM_KERNEL_ARGS, HALVING_GROUPS, LaunchPlan, Params, Step,
                   Variant, check_index_reach, groups_in_reach, switches)

POWERS_OF_TWO = [2 ** p for p in range(5, 11)]  # 32 ... 1024
MAX_ELEMENT_LAUNCHES = 4096  # C of more elements than this takes ELEMENT_LAUNCHES=0


class Phvm(Variant):
    name = "phvm"
    stacks = False  # its kernels do not take a stack (kernels_cl/common.h: STACKED)
    source_file = "phvm.cl"
    summary = ("the paper's PHVM: the grid computes one element of C after the other, "
               "coalesced grid-stride loads, a tree per group, one atomic add per group")
    space = {"GS": [2 ** p for p in range(0, 13)], "BS": POWERS_OF_TWO}
    defaults = {"GS": 128, "BS": 256, "ELEMENT_LAUNCHES": 0}
    flags = ("ELEMENT_LAUNCHES",)
    restrictions = (HALVING_GROUPS, switches("ELEMENT_LAUNCHES"))
    coalesced = 1

    def work_group(self, params: Params) -> tuple[int, int]:
        return 1, params["BS"]

    def private_values(self, params: Params) -> int:
        return 4

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        return params["BS"] * itemsize

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        found = super().problems(params, device, itemsize)
        if itemsize == 8 and "cl_khr_int64_base_atomics" not in device.extensions:
            found.append("float64 needs 64-bit atomics (cl_khr_int64_base_atomics), which "
                         "the device does not report")
        return found

    def defines(self, params: Params) -> dict:
        return {"BS": params["BS"], "COALESCED": self.coalesced,
                "ELEMENT_LAUNCHES": params["ELEMENT_LAUNCHES"]}

    def effective(self, m: int, n: int, k: int, params: Params) -> dict:
        """GS cut to the groups K gives work to, within the kernels' int."""
        params = super().effective(m, n, k, params)
        params["GS"] = groups_in_reach(k, min(params["GS"], ceil(k / params["BS"])),
                                       params["BS"])
        return params

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        """GS groups of BS work-items, but no more groups than K gives work to."""
        params = self.effective(m, n, k, params)
        threads = params["GS"] * params["BS"]
        check_index_reach(self.name, k, params["GS"], params["BS"])
        ndrange, defines = NDRange(threads, params["BS"]), self.checked_defines(params)
        local = self.local_mem_bytes(params, itemsize)
        if not params["ELEMENT_LAUNCHES"]:
            return LaunchPlan(ndrange, defines, local, zero_c=True)
        if m * n > MAX_ELEMENT_LAUNCHES:
            raise ParameterError(f"{self.name}: ELEMENT_LAUNCHES=1 launches once per element "
                                 f"of C, and {m}x{n} has more than {MAX_ELEMENT_LAUNCHES}")
        first, *rest = [Step(ndrange, defines, args=GEMM_KERNEL_ARGS + (element,))
                        for element in range(m * n)]
        return LaunchPlan.starting_with(first, local_mem_bytes=local, more=tuple(rest),
                                        zero_c=True)


class BasicMM(Phvm):
    name = "basicmm"
    summary = "the paper's BasicMM baseline: PHVM with a contiguous segment of K per work-item"
    coalesced = 0
