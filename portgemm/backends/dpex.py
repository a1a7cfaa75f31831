"""numba-dpex backend: the GEMM variants as SYCL kernels written in Python (optional extra).

numba-dpex compiles a Python function into a SPIR-V kernel that a SYCL runtime (through
dpctl) runs on an Intel CPU or GPU, via OpenCL or Level Zero. This module holds the same
variants as the OpenCL backend -- ``naive``, ``tiled``, ``inreg`` and ``local`` -- with the
same parameters, defaults and checks (taken from :mod:`portgemm.variants`), launched over
portgemm's :class:`~portgemm.runtime.ndrange.NDRange` objects.

    from portgemm.backends.dpex import run_dpex, dpex_available
    result = run_dpex(a, b, device="opencl:cpu", variant="tiled", params={"tile_y": 8})
    result.c, result.kernel_ms, result.wall_ms

The numba-dpex stack (frozen in 2024, wheels for Python 3.9-3.11 on Linux x86_64) is
installed with ``pip install "portgemm[dpex]"``; nothing here imports it before the first
call, so this module imports everywhere and :func:`run_dpex` raises
:class:`~portgemm.errors.BackendUnavailableError` naming that command when it is missing.

How the kernels are written. A parameter such as ``tile_y`` must be a compile-time
constant so the tile lives in registers. Each parameter set therefore gets its own kernel
*source*, generated as plain Python text with the tile unrolled into scalar variables
(the numba-dpex counterpart of the OpenCL kernels' ``-D`` options), compiled once per
process and kept; :func:`kernel_source` shows that text. A ``kernel_api.PrivateArray``
tile was measured 1.5x slower than the unrolled scalars on the Intel CPU runtime.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import BackendUnavailableError, DeviceNotFoundError, ParameterError
from ..operands import check_operands
from ..runtime.device import Device
from ..runtime.drivers import INTEL_COMPANION_LIBRARIES, register_drivers
from ..runtime.ndrange import NDRange, Range
from ..variants.base import Params, Variant
from .opencl import GemmResult

INSTALL_COMMAND = 'pip install "portgemm[dpex]"'
VARIANTS = ("naive", "tiled", "inreg", "local")
DEFAULT_DEVICE = "opencl:cpu"
# Backends whose devices take SPIR-V, the only code numba-dpex produces.
SPIRV_BACKENDS = ("opencl", "level_zero")

# The SYCL stack's shared libraries, in an order in which each one's symbols are already
# present when it loads. The pip wheels of dpctl/dpnp carry build-machine RPATHs, so
# without this their extensions do not find libsycl.so.7 or MKL in <prefix>/lib.
# libmkl_core and the threading layer need each other's symbols: loaded lazily.
# libur_loader.so.0 stays out on purpose: it exports libc++abi's exception symbols, which,
# made global, break C++ exceptions in pyopencl (a caught error aborts the process). The
# OpenCL and Level Zero plugins do not need it.
SYCL_LIBRARIES = INTEL_COMPANION_LIBRARIES + (
    "libOpenCL.so.1", "libsycl.so.7", "libtbb.so.12",
    "libmkl_core.so.2", "libmkl_tbb_thread.so.2", "libmkl_intel_ilp64.so.2",
    "libmkl_sycl_blas.so.4", "libmkl_sycl_lapack.so.4", "libmkl_sycl_dft.so.4",
    "libmkl_sycl_rng.so.4", "libmkl_sycl_stats.so.4", "libmkl_sycl_vm.so.4",
)

# Loaded RTLD_LOCAL: the ICD loader, and the libraries that depend on it (RTLD_GLOBAL on
# them would make it global too). Found by soname all the same, it then does not take
# pyopencl's OpenCL calls away from pyopencl's own loader (which also knows PoCL).
LOCAL_SCOPE_LIBRARIES = ("libOpenCL.so.1",) + tuple(
    name for name in SYCL_LIBRARIES if name.startswith("libmkl_sycl_"))


class _Stack:
    """The imported numba-dpex stack: dpctl, dpctl.tensor, numba_dpex, its kernel_api."""

    def __init__(self, dpctl, dpt, dpex, kapi):
        self.dpctl, self.dpt, self.dpex, self.kapi = dpctl, dpt, dpex, kapi


_stack: _Stack | None = None
_stack_failure: str | None = None  # why the stack did not import, once it has been tried


def _unavailable(reason: str) -> BackendUnavailableError:
    return BackendUnavailableError(
        f"the numba-dpex backend is not available ({reason}); install it with "
        f"{INSTALL_COMMAND} -- its pinned 2024 stack (numba-dpex 0.23, dpctl 0.17, "
        f"numba 0.59, numpy 1.26) has wheels for Python 3.9 to 3.11 on Linux x86_64 "
        f"only, so use a Python <= 3.11 environment (see docs/dpex.md)")


def _load_stack() -> _Stack:
    """Import dpctl and numba_dpex once, after the drivers and libraries are in place."""
    global _stack, _stack_failure
    if _stack is not None:
        return _stack
    if _stack_failure is not None:
        raise _unavailable(_stack_failure)
    try:
        # OCL_ICD_VENDORS must be set before the SYCL runtime's first platform query.
        register_drivers()
        _preload_sycl_libraries()
        import dpctl
        import dpctl.tensor as dpt
        import numba_dpex as dpex
        from numba_dpex import kernel_api as kapi
    except Exception as exc:  # ImportError, or a version check of the stack failing
        _stack_failure = f"{type(exc).__name__}: {exc}"
        raise _unavailable(_stack_failure) from exc
    _let_local_accessors_follow_the_arrays()
    _stack = _Stack(dpctl, dpt, dpex, kapi)
    return _stack


def _let_local_accessors_follow_the_arrays() -> None:
    """Leave LocalAccessor arguments out of numba-dpex 0.23's same-queue check.

    numba-dpex types a LocalAccessor as an array on the *default* device's cached queue,
    then refuses a kernel whose arrays live on any other queue -- so a kernel with local
    memory could run only on the default device, without profiling. Local memory belongs
    to no queue (the kernel is submitted to the queue of its first array either way), so
    the check is run on the other arguments only. Applied once; a no-op if the stack's
    internals differ from the pinned release.
    """
    try:
        from numba_dpex.core.types.kernel_api.local_accessor import LocalAccessorType
        from numba_dpex.kernel_api_impl.spirv.dispatcher import _SPIRVKernelCompiler
    except ImportError:
        return
    original = getattr(_SPIRVKernelCompiler, "check_queue_equivalence_of_args", None)
    if original is None or getattr(original, "portgemm_wrapped", False):
        return

    def check_queue_equivalence_of_args(self, py_func_name, args):
        arrays = [t for t in args if not isinstance(t, LocalAccessorType)]
        return original(self, py_func_name, arrays)

    check_queue_equivalence_of_args.portgemm_wrapped = True
    _SPIRVKernelCompiler.check_queue_equivalence_of_args = check_queue_equivalence_of_args


def dpex_available() -> bool:
    """True when numba-dpex and dpctl import and work here (imports them on first call)."""
    try:
        _load_stack()
    except BackendUnavailableError:
        return False
    return True


def _library_dirs() -> list[Path]:
    """Where pip put the SYCL runtime's libraries: beside libsycl.so.7, else <prefix>/lib."""
    dirs = []
    try:
        dist = metadata.distribution("intel-sycl-rt")
        dirs += [Path(dist.locate_file(entry)).resolve().parent
                 for entry in dist.files or () if entry.name == "libsycl.so.7"]
    except metadata.PackageNotFoundError:
        pass
    dirs.append(Path(sys.prefix) / "lib")
    return list(dict.fromkeys(dirs))


def _preload_sycl_libraries() -> None:
    """Load the stack's libraries by absolute path, RTLD_GLOBAL, so their sonames resolve.

    Only when dpctl is installed (otherwise the import below fails with the clear error);
    libraries not found are skipped: the import then names what is missing.
    """
    try:
        metadata.distribution("dpctl")
    except metadata.PackageNotFoundError:
        return
    libc = ctypes.CDLL(None)
    libc.dlopen.restype = ctypes.c_void_p
    libc.dlopen.argtypes = (ctypes.c_char_p, ctypes.c_int)
    dirs = _library_dirs()
    for name in SYCL_LIBRARIES:
        path = next((d / name for d in dirs if (d / name).is_file()), None)
        if path is not None:
            # ctypes.CDLL forces RTLD_NOW, which MKL's mutually dependent layers fail.
            scope = os.RTLD_LOCAL if name in LOCAL_SCOPE_LIBRARIES else os.RTLD_GLOBAL
            libc.dlopen(str(path).encode(), os.RTLD_LAZY | scope)


# --- devices and queues -------------------------------------------------------------

def _sycl_device(spec):
    """A dpctl.SyclDevice from a filter string ("opencl:cpu:0", "gpu"), a SyclDevice, or
    a portgemm Device from :func:`get_sycl_devices` / a result (by its filter string)."""
    stack = _load_stack()
    if isinstance(spec, stack.dpctl.SyclDevice):
        return spec
    if isinstance(spec, Device):
        spec = spec.filter_string
    if not isinstance(spec, str):
        raise TypeError(f"device must be a dpctl filter string or a dpctl.SyclDevice, "
                        f"got {type(spec).__name__}")
    try:
        device = stack.dpctl.SyclDevice(spec)
    except Exception:  # dpctl's SyclDeviceCreationError derives from Exception only
        present = "\n  ".join(f"{d.filter_string}: {d.name}"
                              for d in stack.dpctl.get_devices()) or "(no SYCL device)"
        raise DeviceNotFoundError(f"no SYCL device matches {spec!r}; devices present:\n"
                                  f"  {present}") from None
    backend = device.backend.name
    if backend not in SPIRV_BACKENDS:
        raise ParameterError(f"{device.filter_string} ({device.name}) is a {backend} device; "
                             f"numba-dpex kernels are SPIR-V and run only on "
                             f"{' or '.join(SPIRV_BACKENDS)} devices")
    return device


def get_sycl_devices() -> list[Device]:
    """Every SYCL device numba-dpex can use here (OpenCL or Level Zero), described."""
    dpctl = _load_stack().dpctl
    return [describe(d) for d in dpctl.get_devices() if d.backend.name in SPIRV_BACKENDS]


def describe(sycl_device) -> Device:
    """portgemm's :class:`Device` for a dpctl.SyclDevice (``handle`` holds the latter)."""
    backend = sycl_device.backend.name
    kind = sycl_device.device_type.name
    filter_string = sycl_device.filter_string
    platform = sycl_device.sycl_platform
    return Device(
        name=sycl_device.name.strip(),
        vendor=sycl_device.vendor.strip(),
        platform=platform.name.strip(),
        type=kind if kind in ("cpu", "gpu", "accelerator") else "custom",
        index=int(filter_string.rsplit(":", 1)[-1]),
        compute_units=sycl_device.max_compute_units,
        max_work_group_size=sycl_device.max_work_group_size,
        # SYCL reports these in SYCL order; portgemm's Device keeps OpenCL order.
        max_work_item_sizes=tuple(reversed(sycl_device.max_work_item_sizes3d)),
        local_mem_size=sycl_device.local_mem_size,
        global_mem_size=sycl_device.global_mem_size,
        max_mem_alloc_size=sycl_device.max_mem_alloc_size,
        has_fp64=bool(sycl_device.has_aspect_fp64),
        driver_version=sycl_device.driver_version.strip(),
        opencl_version="",
        platform_version=platform.version.strip(),
        backend=backend,
        handle=sycl_device,
    )


_queues: dict[str, tuple[Any, bool]] = {}


def _queue(sycl_device):
    """(in-order queue with profiling if the device allows it, profiling on?) per device."""
    key = sycl_device.filter_string
    if key not in _queues:
        dpctl = _load_stack().dpctl
        try:
            _queues[key] = (dpctl.SyclQueue(sycl_device,
                                             property=["enable_profiling", "in_order"]), True)
        except Exception:  # a device without profiling: wall times instead
            _queues[key] = (dpctl.SyclQueue(sycl_device, property="in_order"), False)
    return _queues[key]


def to_dpex_range(space: Range | NDRange):
    """numba_dpex.Range / NdRange for a portgemm Range / NDRange (both SYCL order)."""
    dpex = _load_stack().dpex
    if isinstance(space, NDRange):
        return dpex.NdRange(space.global_range.sizes, space.local_range.sizes)
    if isinstance(space, Range):
        return dpex.Range(*space.sizes)
    raise TypeError(f"expected a portgemm Range or NDRange, got {type(space).__name__}")


# --- variants and their kernels -----------------------------------------------------

def get_dpex_variant(name: str) -> Variant:
    """The registered variant ``name`` (its parameters and checks) if dpex implements it."""
    if name not in VARIANTS:
        raise ParameterError(f"unknown dpex variant {name!r}; the dpex backend has "
                             f"{', '.join(VARIANTS)}")
    from ..variants import get_variant

    return get_variant(name)


def kernel_source(variant: str, params: Params) -> str:
    """The Python source of the numba-dpex kernel for a variant and resolved parameters."""
    p = dict(params)
    if variant == "naive":
        return _NAIVE_SOURCE
    if variant in ("tiled", "inreg"):
        return _register_tiled_source(p["tile_y"], p["tile_x"], p.get("length", 1))
    if variant == "local":
        return _local_source(p["wg_y"], p["wg_x"], p["tile_y"], p["tile_x"], p["tile_k"])
    raise ParameterError(f"unknown dpex variant {variant!r}")


_NAIVE_SOURCE = '''\
def gemm_naive(item, m, n, k, a, b, c):
    """One work-item per element of C; the nd-range covers (M, N) rounded up."""
    row = item.get_global_id(0)
    col = item.get_global_id(1)
    if row < m and col < n:
        acc = a.dtype.type(0)
        for p in range(k):
            acc += a[row, p] * b[p, col]
        c[row, col] = acc
'''


def _register_tiled_source(tile_y: int, tile_x: int, length: int) -> str:
    """tiled (length 1) and inreg: a tile_y x tile_x block of C per work-item in scalars.

    Each step loads ``length`` values of K per row of A and per column of B into scalars
    (the input registers), then adds their outer products. Rows and columns past the
    edge are clamped to the last one (valid memory, results never stored); K is walked
    in whole steps of ``length``, then one value at a time for the remainder.
    """
    ty, tx, ln = range(tile_y), range(tile_x), range(length)
    out = [f"def gemm_tiled(item, m, n, k, a, b, c):",
           f'    """{tile_y}x{tile_x} register tile of C, K in steps of {length}."""',
           f"    row0 = item.get_global_id(0) * {tile_y}",
           f"    col0 = item.get_global_id(1) * {tile_x}",
           f"    if row0 >= m or col0 >= n:",
           f"        return",
           f"    zero = a.dtype.type(0)"]
    out += [f"    r{y} = min(row0 + {y}, m - 1)" for y in ty]
    out += [f"    c{x} = min(col0 + {x}, n - 1)" for x in tx]
    out += ["    " + " = ".join(f"acc{y}_{x}" for x in tx) + " = zero" for y in ty]

    def step(indent: str, lengths: range, base: str) -> list[str]:
        lines = []
        for l in lengths:
            kk = f"{base} + {l}" if l else base
            lines += [f"{indent}a{y}_{l} = a[r{y}, {kk}]" for y in ty]
            lines += [f"{indent}b{l}_{x} = b[{kk}, c{x}]" for x in tx]
        for l in lengths:
            lines += [f"{indent}acc{y}_{x} += a{y}_{l} * b{l}_{x}" for y in ty for x in tx]
        return lines

    if length == 1:
        out.append("    for p in range(k):")
        out += step("        ", ln, "p")
    else:
        out.append(f"    k_whole = k - k % {length}")
        out.append(f"    for k0 in range(0, k_whole, {length}):")
        out += step("        ", ln, "k0")
        out.append("    for p in range(k_whole, k):")
        out += step("        ", range(1), "p")
    for y in ty:
        out.append(f"    if row0 + {y} < m:")
        for x in tx:
            out.append(f"        if col0 + {x} < n:")
            out.append(f"            c[row0 + {y}, col0 + {x}] = acc{y}_{x}")
    return "\n".join(out) + "\n"


def _local_source(wg_y: int, wg_x: int, tile_y: int, tile_x: int, tile_k: int) -> str:
    """local: K slabs of A and B copied into local memory, then register blocking.

    A work-group of wg_y x wg_x work-items computes a (wg_y*tile_y) x (wg_x*tile_x) tile
    of C. For each slab of tile_k values of K, all work-items copy the slab's piece of A
    and of B into the local accessors (zeros past the edges), wait at a group barrier,
    and accumulate their elements of C; a second barrier guards the next copy. A
    work-item owns rows ly + y*wg_y and columns lx + x*wg_x of the tile (strided), as in
    kernels_cl/local.cl, so neighbouring work-items touch neighbouring addresses.
    """
    tile_m, tile_n, wg = wg_y * tile_y, wg_x * tile_x, wg_y * wg_x
    ty, tx = range(tile_y), range(tile_x)
    out = [f"def gemm_local(item, m, n, k, a, b, c, a_tile, b_tile):",
           f'    """{wg_y}x{wg_x} work-items, {tile_y}x{tile_x} of C each, slabs of '
           f'{tile_k}."""',
           f"    ly = item.get_local_id(0)",
           f"    lx = item.get_local_id(1)",
           f"    tid = ly * {wg_x} + lx",
           f"    m0 = (item.get_global_id(0) - ly) * {tile_y}",
           f"    n0 = (item.get_global_id(1) - lx) * {tile_x}",
           f"    group = item.get_group()",
           f"    zero = a.dtype.type(0)"]
    out += ["    " + " = ".join(f"acc{y}_{x}" for x in tx) + " = zero" for y in ty]
    out += [f"    for k0 in range(0, k, {tile_k}):",
            f"        for e in range(tid, {tile_m * tile_k}, {wg}):",
            f"            i = e // {tile_k}",
            f"            l = e % {tile_k}",
            f"            if m0 + i < m and k0 + l < k:",
            f"                a_tile[i, l] = a[m0 + i, k0 + l]",
            f"            else:",
            f"                a_tile[i, l] = zero",
            f"        for e in range(tid, {tile_k * tile_n}, {wg}):",
            f"            l = e // {tile_n}",
            f"            j = e % {tile_n}",
            f"            if k0 + l < k and n0 + j < n:",
            f"                b_tile[l, j] = b[k0 + l, n0 + j]",
            f"            else:",
            f"                b_tile[l, j] = zero",
            f"        group_barrier(group)",
            f"        for l in range({tile_k}):"]
    out += [f"            a{y} = a_tile[ly + {y * wg_y}, l]" for y in ty]
    out += [f"            b{x} = b_tile[l, lx + {x * wg_x}]" for x in tx]
    out += [f"            acc{y}_{x} += a{y} * b{x}" for y in ty for x in tx]
    out.append(f"        group_barrier(group)")
    for y in ty:
        out.append(f"    if m0 + ly + {y * wg_y} < m:")
        for x in tx:
            out.append(f"        if n0 + lx + {x * wg_x} < n:")
            out.append(f"            c[m0 + ly + {y * wg_y}, n0 + lx + {x * wg_x}] = "
                       f"acc{y}_{x}")
    return "\n".join(out) + "\n"


@lru_cache(maxsize=None)
def _kernel(source: str) -> Any:
    """The numba-dpex kernel dispatcher for one generated source (compiled on its first
    launch, once per dtype, then kept for the process)."""
    stack = _load_stack()
    namespace = {"group_barrier": stack.kapi.group_barrier}
    code = compile(source, "<portgemm dpex kernel>", "exec")
    exec(code, namespace)  # noqa: S102 -- our own generated text, no user input
    function = next(v for k, v in namespace.items() if k.startswith("gemm_"))
    return stack.dpex.kernel(function)


# --- running ------------------------------------------------------------------------

@dataclass
class DpexResult(GemmResult):
    """A :class:`GemmResult` from the dpex backend, saying how ``kernel_ms`` was taken.

    timing: "event" (SYCL event profiling, device start to end) or "wall" (host time of
    submitting the kernel and waiting for it, when the device gives no profiling; that
    includes the JIT compilation on a first call). notes: why, when not "event".
    """

    timing: str = "event"
    notes: tuple[str, ...] = ()
    sycl_event: Any = None


def run_dpex(a, b, *, device: Any = DEFAULT_DEVICE, variant: str = "tiled",
             params: Mapping[str, Any] | None = None,
             poison: float | None = None) -> DpexResult:
    """C = A @ B with a numba-dpex kernel on a SYCL device; C and its times.

    device: a dpctl filter string ("opencl:cpu", "opencl:cpu:0", "level_zero:gpu"), a
      dpctl.SyclDevice, or a Device from :func:`get_sycl_devices`.
    variant: "naive", "tiled", "inreg" or "local"; params: its parameters (those of
      :mod:`portgemm.variants`), missing ones take defaults.
    poison: a value C is filled with on the device before the kernel runs (tests use NaN
      so unwritten elements show).
    Raises BackendUnavailableError (numba-dpex missing: names the install command),
    DeviceNotFoundError, ValueError for bad shapes (ParameterError for parameters and
    limits), TypeError for dtypes (float64 on a device without fp64 included).
    """
    a, b = check_operands(a, b)
    impl = get_dpex_variant(variant)
    resolved = impl.resolve(params)  # parameter errors come before any import
    stack = _load_stack()
    start = time.perf_counter()
    sycl_device = _sycl_device(device)
    info = describe(sycl_device)
    if a.dtype == np.float64 and not info.has_fp64:
        raise TypeError(f"{info.description} has no float64 support; use float32")
    resolved = impl.check(resolved, info, a.itemsize)

    m, k = a.shape
    n = b.shape[1]
    plan = impl.plan(m, n, k, resolved, a.itemsize)
    kernel = _kernel(kernel_source(variant, resolved))
    queue, profiling = _queue(sycl_device)
    dpt = stack.dpt
    a_dev = dpt.asarray(np.ascontiguousarray(a), sycl_queue=queue)
    b_dev = dpt.asarray(np.ascontiguousarray(b), sycl_queue=queue)
    c_dev = (dpt.empty((m, n), dtype=a.dtype, sycl_queue=queue) if poison is None else
             dpt.full((m, n), poison, dtype=a.dtype, sycl_queue=queue))
    args = [m, n, k, a_dev, b_dev, c_dev]
    if variant == "local":
        tile_m = resolved["wg_y"] * resolved["tile_y"]
        tile_n = resolved["wg_x"] * resolved["tile_x"]
        local_accessor = stack.kapi.LocalAccessor
        args += [local_accessor((tile_m, resolved["tile_k"]), dtype=a.dtype),
                 local_accessor((resolved["tile_k"], tile_n), dtype=a.dtype)]
    queue.wait()  # uploads and poison done: the launch below is the kernel alone

    launch = time.perf_counter()
    host_event, event = stack.dpex.call_kernel_async(kernel, to_dpex_range(plan.ndrange),
                                                     (), *args)
    event.wait()
    host_event.wait()
    launch_ms = (time.perf_counter() - launch) * 1e3
    kernel_ms, timing, notes = _kernel_time(event, profiling, launch_ms)

    c = dpt.asnumpy(c_dev)
    wall_ms = (time.perf_counter() - start) * 1e3
    return DpexResult(c, info, variant, dict(resolved), kernel_ms, wall_ms, backend="dpex",
                      timing=timing, notes=notes, sycl_event=event)


def _kernel_time(event, profiling: bool, launch_ms: float) -> tuple[float, str, tuple]:
    if profiling:
        try:
            elapsed_ns = event.profiling_info_end - event.profiling_info_start
            return elapsed_ns * 1e-6, "event", ()
        except Exception as exc:  # the runtime refused profiling for this event
            why = f"SYCL event profiling failed ({exc})"
    else:
        why = "the device's queue does not support profiling"
    return launch_ms, "wall", (f"kernel_ms is the host's wall time of the launch: {why}",)


# --- a small benchmark: python -m portgemm.backends.dpex ------------------------------

def _bench(argv=None) -> int:
    """Time every dpex variant beside numpy in the same run (median of --reps runs)."""
    import argparse
    import statistics

    from tabulate import tabulate

    from ..verify import reference, relative_error, tolerance

    parser = argparse.ArgumentParser(
        prog="python -m portgemm.backends.dpex",
        description="Time the numba-dpex variants beside numpy, in the same run.")
    parser.add_argument("--device", default=DEFAULT_DEVICE, help="dpctl filter string")
    parser.add_argument("--variant", default="all", help="NAME[,NAME] or 'all'")
    parser.add_argument("--sizes", default="512,1024", help="N[,N]: square sizes")
    parser.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    parser.add_argument("--params", default="{}",
                        help="JSON object of parameters, applied where a variant has them")
    parser.add_argument("--reps", type=int, default=5, help="timed runs per case (median)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import json

    extra = json.loads(args.params)
    names = VARIANTS if args.variant == "all" else tuple(args.variant.split(","))
    rng = np.random.default_rng(args.seed)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        a = rng.standard_normal((size, size)).astype(args.dtype)
        b = rng.standard_normal((size, size)).astype(args.dtype)
        ref = reference(a, b)
        flops = 2.0 * size ** 3
        numpy_ms = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            np.matmul(a, b)
            numpy_ms.append((time.perf_counter() - t0) * 1e3)
        numpy_median = statistics.median(numpy_ms)
        rows.append(["numpy", "", f"{size}^3", "", f"{numpy_median:.2f}",
                     f"{flops / numpy_median / 1e6:.1f}", "100%", "", ""])
        for name in names:
            impl = get_dpex_variant(name)
            params = {k: v for k, v in extra.items() if k in impl.defaults}
            first = run_dpex(a, b, device=args.device, variant=name, params=params)
            runs = [run_dpex(a, b, device=args.device, variant=name, params=params)
                    for _ in range(args.reps)]
            kernel = statistics.median(r.kernel_ms for r in runs)
            wall = statistics.median(r.wall_ms for r in runs)
            err = relative_error(runs[-1].c, ref)
            ok = "ok" if err <= tolerance(a.dtype, size) else "WRONG"
            rows.append([name, " ".join(f"{k}={v}" for k, v in first.params.items()),
                         f"{size}^3", f"{kernel:.2f}", f"{wall:.2f}",
                         f"{flops / kernel / 1e6:.1f}", f"{numpy_median / kernel:.1%}",
                         f"{err:.1e}", f"{ok} (first call {first.wall_ms:.0f} ms)"])
        device = first.device.description
    print(f"numba-dpex on {device}, {args.dtype}, median of {args.reps} runs")
    print(tabulate(rows, headers=["variant", "params", "size", "kernel ms", "wall ms",
                                  "GFLOPS", "of numpy", "rel err", "status"]))
    print("kernel ms: SYCL event profiling; wall ms: whole call with copies (numpy: the "
          "call); GFLOPS from kernel ms (numpy: wall); first call includes JIT compile")
    return 0


if __name__ == "__main__":
    raise SystemExit(_bench())
