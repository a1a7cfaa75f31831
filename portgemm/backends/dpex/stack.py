"""Importing the numba-dpex stack: its shared libraries first, then dpctl and numba_dpex.

The stack (frozen in 2024, wheels for Python 3.9-3.11 on Linux x86_64) is installed with
``pip install "portgemm[dpex]"``; nothing here imports it before the first call, so this
module imports everywhere and :func:`load_stack` raises
:class:`~portgemm.errors.BackendUnavailableError` naming that command when it is missing.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from ...errors import BackendUnavailableError
from ...runtime.drivers import INTEL_COMPANION_LIBRARIES, register_drivers
from ...runtime.libraries import find_library, load_library

INSTALL_COMMAND = 'pip install "portgemm[dpex]"'

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


def load_stack() -> _Stack:
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
        load_stack()
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
    """Load the stack's libraries by absolute path so their sonames resolve.

    Only when dpctl is installed (otherwise the import below fails with the clear error);
    libraries not found are skipped: the import then names what is missing. Lazy binding:
    MKL's mutually dependent layers fail an immediate one.
    """
    try:
        metadata.distribution("dpctl")
    except metadata.PackageNotFoundError:
        return
    dirs = _library_dirs()
    for name in SYCL_LIBRARIES:
        path = find_library(name, dirs)
        if path is not None:
            load_library(path, global_scope=name not in LOCAL_SCOPE_LIBRARIES, lazy=True)
