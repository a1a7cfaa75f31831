"""How one call of a variant is compiled and launched: its plan's kernel sources and the
-D options that select each compiled kernel. Nothing here runs a kernel, so the OpenCL
backend and the device probe (which times phvm for its model) both build on it."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..caches import memoize
from .base import Variant, over_stack
from .sources import read_kernel


def build_options(variant: Variant, params: Mapping, dtype: np.dtype,
                  a_colmajor: bool, b_colmajor: bool) -> tuple[str, ...]:
    """The -D options that select one compiled kernel of a variant's family."""
    return kernel_options(variant.checked_defines(params), dtype, a_colmajor, b_colmajor)


def kernel_options(defines, dtype: np.dtype, a_colmajor: bool,
                   b_colmajor: bool) -> tuple[str, ...]:
    """A plan step's -D ``defines`` with the element type and the operands' orders."""
    real = "double" if dtype == np.float64 else "float"
    merged = {"REAL": real, "USE_FP64": int(dtype == np.float64),
              "A_COLMAJOR": int(a_colmajor), "B_COLMAJOR": int(b_colmajor), **dict(defines)}
    return tuple(f"-D{name}={value}" for name, value in sorted(merged.items())) + (
        "-cl-mad-enable",)


@memoize(maxsize=512)
def launch_plan(variant: Variant, params: tuple, m: int, n: int, k: int, dtype: np.dtype,
                a_colmajor: bool, b_colmajor: bool, stack: int = 0):
    """(LaunchPlan, each step's kernel source, each step's build options) of one call,
    remembered: repeated shapes skip the work. ``stack``: that many products of the
    shape in one launch (families.base.over_stack); None where the plan cannot."""
    plan = variant.plan(m, n, k, dict(params), dtype.itemsize)
    if stack:
        plan = over_stack(plan, stack, variant.stacks_scratch) if variant.stacks else None
        if plan is None:
            return None
    sources = tuple(read_kernel(step.source_file) if step.source_file else variant.source
                    for step in plan.steps)
    options = tuple(kernel_options(step.defines, dtype, a_colmajor, b_colmajor)
                    for step in plan.steps)
    return plan, sources, options
