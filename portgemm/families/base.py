"""What a GEMM variant is: a kernel family, its parameter space, limits and launch plan.

A variant never launches anything itself. It checks parameters against a device
(:meth:`Variant.problems`), and turns a shape plus parameters into a :class:`LaunchPlan`
(nd-range and -D defines); a backend runs the plan. New variants subclass
:class:`Variant`, override what differs, and are added to the registry in
``portgemm/families/__init__.py``.

One vocabulary across families (:data:`COMMON_PARAMETERS`): ``tile_y x tile_x`` is the
block of C one work-item computes, ``wg_y x wg_x`` the work-group's shape in work-items,
``tile_k`` the depth of a K slab staged in local memory, ``vw`` the elements of one
global load. Families whose kernels use other names (xgemm: MWG, MDIMC, ...) map these
onto their own in :meth:`Variant.translate`, so ``--tile 8x8`` means an 8 x 8 block of C
per work-item in every family that has one.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from math import ceil
from typing import Any, Callable, Mapping

from ..errors import ParameterError
from ..runtime.device import Device
from ..runtime.ndrange import NDRange, round_up
from .sources import kernel_parameters, read_kernel

Params = Mapping[str, Any]

COMMON_PARAMETERS = {
    "tile_y": "rows of C computed by one work-item",
    "tile_x": "columns of C computed by one work-item",
    "wg_y": "work-items of a work-group along M",
    "wg_x": "work-items of a work-group along N",
    "tile_k": "depth of one K slab staged in local memory",
    "vw": "elements per global load (vector width)",
}
WORK_GROUP_SPACE = {"wg_y": [1, 2, 4, 8, 16, 32], "wg_x": [4, 8, 16, 32, 64, 128]}
INT_LIMIT = 2 ** 31 - 1  # the kernels' int: no parameter (a -D literal, a size) may pass it
MAX_PRIVATE_VALUES = 512  # values a work-item keeps in registers past which every device spills


# The arguments of every GEMM kernel (kernels_cl/common.h's GEMM_ARGS), by name: a plan's
# steps list theirs in these names, plus "W0", "W1", ... for its workspace buffers and
# plain ints for constants.
GEMM_KERNEL_ARGS = ("M", "N", "K", "A", "lda", "B", "ldb", "C", "ldc")


@dataclass(frozen=True)
class Step:
    """One kernel launch: the kernel, its -D values, its nd-range and its arguments."""

    ndrange: NDRange
    defines: tuple[tuple[str, Any], ...]
    kernel: str = "gemm"
    source_file: str = ""   # a file of kernels_cl/; "" is the variant's own
    args: tuple = GEMM_KERNEL_ARGS


@dataclass(frozen=True)
class LaunchPlan:
    """Everything a backend needs to run one GEMM of one shape: the first kernel (its
    nd-range, defines and arguments), the launches that follow it in order (``more``: a
    reduction, say), the workspace buffers they share (element counts; "W0", "W1", ...),
    how many int32 ticket counters the kernels take as "Z0" (zero at the launch; the
    kernels leave them zero), and whether C must hold zeros before the first launch
    (kernels that add into it)."""

    ndrange: NDRange
    defines: tuple[tuple[str, Any], ...]  # -D NAME=value, parameter part only
    local_mem_bytes: int = 0
    more: tuple[Step, ...] = ()
    workspace: tuple[int, ...] = ()
    counters: int = 0
    zero_c: bool = False
    args: tuple = GEMM_KERNEL_ARGS
    kernel: str = "gemm"
    source_file: str = ""   # of the first kernel: "" is the variant's own

    @classmethod
    def starting_with(cls, first: Step, **rest) -> "LaunchPlan":
        """A plan whose first launch is ``first`` (a packing step, say)."""
        return cls(first.ndrange, first.defines, kernel=first.kernel,
                   source_file=first.source_file, args=first.args, **rest)

    @property
    def steps(self) -> tuple[Step, ...]:
        return (Step(self.ndrange, self.defines, self.kernel, self.source_file, self.args),
                ) + self.more


# C of at least this many elements is summed 4 elements a work-item (kernels_cl/reduce.cl):
# enough work-items remain to fill a GPU; smaller ones (tall-skinny C) keep one each.
SUM_VEC_ELEMENTS = 1 << 18


def reduce_step(m: int, n: int, slices: int, workspace: str = "W0") -> Step:
    """kernels_cl/reduce.cl's sum_slices: C = the sum of ``slices`` M x N partial products
    in ``workspace``, in slice order."""
    vec = 4 if m * n >= SUM_VEC_ELEMENTS and n >= 4 else 1
    columns = ceil(n / vec)
    local = min(256, round_up(columns, 32))  # whole warps
    return Step(NDRange.covering((m, columns), (1, local)), (("SUM_VEC", vec),),
                "sum_slices", "reduce.cl", ("M", "N", slices, workspace, "C", "ldc"))


def split_along_k(whole: LaunchPlan, m: int, n: int, splits: int) -> LaunchPlan:
    """``whole`` (the one launch of a kernel that takes KSPLIT: kernels_cl/splitk.h) as
    ``splits`` layers of its work-groups along K, each writing its partial product into
    a slice of the workspace, then the sum of the slices into C."""
    if splits == 1:
        return whole
    nd = whole.ndrange
    return replace(whole, ndrange=NDRange((splits, *nd.global_range), (1, *nd.local_range)),
                   more=(reduce_step(m, n, splits),) + whole.more,
                   workspace=(splits * m * n,) + whole.workspace,
                   args=GEMM_KERNEL_ARGS[:-2] + ("W0", "N"))


STACK_KERNEL_ARGS = ("stride_a", "stride_b", "stride_c")

# parameters that add launches to a plan, with the values that take them away: a split
# of K (its layers and their sum) and packing (B or A copied into a workspace first).
# A stack of products runs in one launch (over_stack) only without them.
UNSPLIT = {"KSPLIT": 1}
UNPACKED = {"PACKED": 0, "PACK_A": 0}


def with_values(params: Params, values: Mapping[str, Any]) -> dict:
    """``params`` with each of ``values`` it has set to that value."""
    return {**params, **{name: value for name, value in values.items() if name in params}}


def over_stack(whole: LaunchPlan, count: int, scratch: bool = False) -> LaunchPlan | None:
    """``whole`` (one product) for each of ``count`` products of a stack in one launch: a
    third dimension of one work-group layer a product (kernels_cl/common.h: STACKED).
    With ``scratch`` (a kernel that moves them to its product's own: Variant.
    stacks_scratch), a workspace and ticket counters for each product. None for a plan
    that cannot: more than one launch, a workspace or counters without ``scratch``, C
    zeroed first, or a third dimension of its own."""
    nd = whole.ndrange
    if (whole.more or whole.zero_c or nd.global_range.dims == 3
            or (not scratch and (whole.workspace or whole.counters))):
        return None
    padding = (1,) * (2 - nd.global_range.dims)
    return replace(whole,
                   ndrange=NDRange((count, *padding, *nd.global_range),
                                   (1, *padding, *nd.local_range)),
                   defines=whole.defines + (("STACKED", 1),),
                   args=STACK_KERNEL_ARGS + whole.args,
                   workspace=tuple(elements * count for elements in whole.workspace),
                   counters=whole.counters * count)


def groups_in_reach(k: int, groups: int, size: int, tail: int = 0) -> int:
    """The most of ``groups`` groups of ``size`` work-items striding K that keep the
    furthest index a kernel forms, K + GS*BS + ``tail``, within INT_LIMIT; at least one
    (a plan refuses a K that one group passes). A model's GS at K near 2^31 was refused
    by its own plan."""
    return max(1, min(groups, (INT_LIMIT - k - tail) // size))


def check_index_reach(name: str, k: int, groups: int, size: int, tail: int = 0) -> None:
    """ParameterError where K + GS*BS + ``tail`` passes the kernels' int."""
    if k + groups * size + tail > INT_LIMIT:
        raise ParameterError(f"{name}: K + GS*BS{' + ' + str(tail) if tail else ''} = "
                             f"{k + groups * size + tail} exceeds the kernels' 32-bit index "
                             f"limit {INT_LIMIT}")


def layers_of_k(splits: int, k: int, slab: int) -> int:
    """The layers of a split of K into ``splits`` runs of whole slabs of ``slab`` steps
    (kernels_cl/splitk.h) that get any of K: a layer whose run starts past K only writes
    zeros. As many layers as this cut the same runs, so the sum is the same."""
    slabs = max(1, ceil(k / slab))
    return ceil(slabs / ceil(slabs / splits))


def tiles_along_n(impl: Variant, m: int, n: int, k: int, params: Params,
                  itemsize: int) -> LaunchPlan:
    """The plan of a family whose work-groups of W work-items each compute one block of C
    (``impl.block``), laid out (SYCL order) as (ceil(M / rows), ceil(N / cols) * W) in
    groups of (1, W) (mma, wgmma), K split into ``params["KSPLIT"]`` layers."""
    params = impl.effective(m, n, k, params)
    rows, cols, _ = impl.block(params)
    _, items = impl.work_group(params)
    ndrange = NDRange((ceil(m / rows), ceil(n / cols) * items), (1, items))
    whole = LaunchPlan(ndrange, impl.checked_defines(params),
                       impl.local_mem_bytes(params, itemsize))
    return split_along_k(whole, m, n, params["KSPLIT"])


def pocl_5_or_later(device: Device) -> bool:
    """Whether ``device`` runs on PoCL 5 or later, whose compiler got two families'
    exchanges through local memory wrong where PoCL 3 and Intel's runtime get them right
    (tallskinny's butterfly, mma's emulated fragments: docs/known-issues.md)."""
    if device.takes_ptx or "Portable Computing Language" not in device.platform:
        return False
    major = device.driver_version.split(".")[0]
    return major.isdigit() and int(major) >= 5


@dataclass(frozen=True)
class Restriction:
    """A predicate a parameter set must satisfy, and the message when it does not."""

    test: Callable[[Params], bool]
    message: str


def restriction(message: str) -> Callable[[Callable[[Params], bool]], Restriction]:
    """Decorator form: ``@restriction("tile_x must divide ...")`` over a predicate."""
    return lambda test: Restriction(test, message)


# the work-groups of the families that sum across them by halving (a tree, a butterfly)
HALVING_GROUPS = Restriction(lambda p: p["BS"] & (p["BS"] - 1) == 0,
                             "BS must be a power of two (the work-group sums by halving)")


def switches(*names: str) -> Restriction:
    """The restriction that each of ``names`` (on/off parameters) is 0 or 1."""
    return Restriction(lambda p: all(p[name] in (0, 1) for name in names),
                       f"{' and '.join(names)} must each be 0 or 1")


def as_count(value: Any) -> int | None:
    """``value`` as a Python int when it is an integer (numpy's included, bool excluded)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


class Variant:
    """A GEMM kernel configuration family running on OpenCL devices."""

    name: str = ""
    source_file: str = ""
    summary: str = ""
    space: dict[str, list] = {}       # tuning search space, parameter -> candidate values
    defaults: dict[str, Any] = {}     # used where the caller gives no value
    restrictions: tuple[Restriction, ...] = ()
    flags: tuple[str, ...] = ()        # parameters that may be 0 (on/off switches, counts)
    # a work-item's columns of C lie a work-group's width apart, so neighbouring work-items
    # read neighbouring values of B however many columns each holds (no gather)
    interleaved_columns: bool = False
    # a work-item adds all its steps of K in sequence, with no slab of its own, and the
    # kernel takes KSPLIT: auto splits a deep K in runs (auto/splitk.py: run_split)
    splits_runs_of_k: bool = False
    # the kernel takes STACK_ARGS and starts with ENTER_STACK (kernels_cl/common.h): a
    # stack of products can run in one launch of a plan of one launch (over_stack)
    stacks: bool = True
    # ... and moves a one-launch plan's workspace and ticket counters to its product's
    # own, so that such plans stack too, each product a plan's worth of them
    stacks_scratch: bool = False

    # --- parameters ---------------------------------------------------------------
    def translate(self, params: Params) -> dict[str, Any]:
        """``params`` with the common vocabulary (:data:`COMMON_PARAMETERS`) turned into
        this family's own names; the identity for families that use it directly."""
        return dict(params)

    @property
    def parameter_names(self) -> frozenset[str]:
        """Every name ``resolve`` takes: the family's own, and the common ones it maps."""
        return frozenset(self.defaults)

    def private_values(self, params: Params) -> int:
        """Values one work-item keeps in registers (accumulators, operands, staged loads)."""
        tile_y, tile_x = self.elements_per_item(params)
        return tile_y * tile_x + tile_y + tile_x

    def registers(self, params: Params, itemsize: int = 4) -> int:
        """32-bit registers a work-item builds to, as far as auto's split-K model needs to
        know how many groups a compute unit holds: xgemm's fit, its private values times
        1.5 plus 24 (the H200's 128 x 128 preset holds one group per SM, as the ~170
        registers it builds to do)."""
        return int(self.private_values(params) * 1.5) + 24

    def resolve(self, params: Params | None) -> dict[str, Any]:
        """Defaults overlaid with ``params``; unknown names and bad values raise."""
        params = self.translate(params or {})
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ParameterError(
                f"variant {self.name!r} has no parameter {', '.join(unknown)}; its "
                f"parameters are {', '.join(sorted(self.defaults)) or 'none'}")
        resolved = {**self.defaults, **params}
        for key, value in resolved.items():
            count, least = as_count(value), 0 if key in self.flags else 1
            if count is None or count < least:
                kind = "0 or a positive integer" if key in self.flags else "a positive integer"
                raise ParameterError(
                    f"{self.name}: parameter {key} must be {kind}, got {value!r}")
            if count > INT_LIMIT:  # a longer -D literal makes the kernels' int calls ambiguous
                raise ParameterError(f"{self.name}: parameter {key} must be at most "
                                     f"{INT_LIMIT} (the kernels' 32-bit int), got {value!r}")
            resolved[key] = count
        for rule in self.rules:
            if not rule.test(resolved):
                raise ParameterError(f"{self.name}: {rule.message} (got {resolved})")
        return resolved

    @property
    def rules(self) -> tuple[Restriction, ...]:
        """The family's restrictions plus the register budget every family shares."""
        return self.restrictions + (Restriction(
            lambda p: self.private_values(p) <= MAX_PRIVATE_VALUES,
            f"a work-item's private values (accumulators, operands, staged loads) must "
            f"be at most {MAX_PRIVATE_VALUES}: past that every device spills registers"),)

    def work_group(self, params: Params) -> tuple[int, int]:
        """Work-group size (rows, columns), SYCL order."""
        return params["wg_y"], params["wg_x"]

    def local_mem_bytes(self, params: Params, itemsize: int) -> int:
        return 0

    def local_mem_bytes_on(self, device: Device, params: Params, itemsize: int) -> int:
        """:meth:`local_mem_bytes` on ``device`` (for a kernel whose needs depend on it)."""
        return self.local_mem_bytes(params, itemsize)

    def problems(self, params: Params, device: Device, itemsize: int = 4) -> list[str]:
        """Why these (resolved) parameters cannot run on ``device``; empty when they can."""
        wg = self.work_group(params)
        found = []
        if wg[0] * wg[1] > device.max_work_group_size:
            found.append(f"work-group {wg[0]}x{wg[1]} = {wg[0] * wg[1]} work-items exceeds "
                         f"the device's max_work_group_size {device.max_work_group_size}")
        limits = tuple(reversed(device.max_work_item_sizes[:2]))  # SYCL order
        if len(limits) == 2 and (wg[0] > limits[0] or wg[1] > limits[1]):
            found.append(f"work-group {wg[0]}x{wg[1]} exceeds the device's per-dimension "
                         f"work-item limits {limits[0]}x{limits[1]}")
        local = self.local_mem_bytes_on(device, params, itemsize)
        if local > device.local_mem_size:
            found.append(f"needs {local} bytes of local memory; the device has "
                         f"local_mem_size {device.local_mem_size}")
        return found

    def check(self, params: Params | None, device: Device, itemsize: int = 4) -> dict[str, Any]:
        """Resolved parameters, or ParameterError naming every limit they break."""
        resolved = self.resolve(params)
        problems = self.problems(resolved, device, itemsize)
        if problems:
            raise ParameterError(f"{self.name} {resolved} cannot run on "
                                 f"{device.description}: " + "; ".join(problems))
        return resolved

    # --- launch ------------------------------------------------------------------
    def elements_per_item(self, params: Params) -> tuple[int, int]:
        """(rows, columns) of C computed by one work-item."""
        return 1, 1

    def copies_ahead(self, params: Params) -> bool:
        """Whether a group's copies of A and B run ahead of its multiplies
        asynchronously (ASYNC_STAGES > 0: several slabs requested at all times), rather
        than each slab's loads waiting to be used."""
        return params.get("ASYNC_STAGES", 0) > 0

    def presets_for(self, device: Device, itemsize: int = 4) -> list[tuple[str, dict[str, Any]]]:
        """Tuned starting points for the device and element size, by name, the best
        first (auto's fitting tile weighs those of the families that split K); none by
        default."""
        return []

    def block(self, params: Params) -> tuple[int, int, int] | None:
        """(rows, columns, slab depth): the block of C one work-group computes and the
        run of K it stages at a time, for families whose kernels split K (KSPLIT:
        kernels_cl/splitk.h); None for the others."""
        return None

    def defines(self, params: Params) -> dict[str, Any]:
        """The kernel's -D parameters for resolved ``params``; each must be one that the
        kernel file (or its prelude) declares."""
        return {}

    def effective(self, m: int, n: int, k: int, params: Params) -> dict[str, Any]:
        """The parameters a plan of an M x N x K product runs: resolved ``params``, each
        that the shape leaves no work for cut (here KSPLIT, to :func:`layers_of_k` of
        the slab its kernel splits K in: ``block``'s depth, else single steps). Every
        plan starts from these, so a plan of them is the plan of ``params``;
        GemmResult.params reports them."""
        params = dict(params)
        if params.get("KSPLIT", 1) > 1:
            slab = (self.block(params) or (1, 1, 1))[2]
            params["KSPLIT"] = layers_of_k(params["KSPLIT"], k, slab)
        return params

    def plan(self, m: int, n: int, k: int, params: Params, itemsize: int = 4) -> LaunchPlan:
        params = self.effective(m, n, k, params)
        per_y, per_x = self.elements_per_item(params)
        ndrange = NDRange.covering((ceil(m / per_y), ceil(n / per_x)), self.work_group(params))
        return LaunchPlan(ndrange, self.checked_defines(params), self.local_mem_bytes(params, itemsize))

    def checked_defines(self, params: Params) -> tuple[tuple[str, Any], ...]:
        """:meth:`defines`, sorted, with every name checked against the kernel file."""
        defines = self.defines(params)
        undeclared = sorted(set(defines) - set(kernel_parameters(self.source_file, own=False)))
        if undeclared:
            raise ParameterError(f"variant {self.name!r} passes -D {', '.join(undeclared)}, "
                                 f"which kernels_cl/{self.source_file} does not declare")
        return tuple(sorted(defines.items()))

    @property
    def source(self) -> str:
        """The kernel file's OpenCL C, includes inlined."""
        return read_kernel(self.source_file)

    def __repr__(self) -> str:
        return f"<variant {self.name}: {self.summary}>"
