"""numba's ``njit`` with its disk cache in the user's cache folder, never in the package.

``njit(cache=True)`` writes its ``.nbi``/``.nbc`` files into a ``__pycache__`` beside the
source file: inside ``site-packages/portgemm``, where ``pip uninstall`` does not remove
them (and a folder left behind imports as an empty namespace package). The dispatchers
made by :func:`cached_njit` look in ``$NUMBA_CACHE_DIR`` when the user set it, else in
``platformdirs.user_cache_dir("portgemm")/numba``. numba's own lookup is untouched for
every other function in the process: nothing global is set.

numba keys a cached kernel on its own source file only, but a kernel here also compiles
code from the modules it imports (threads.py's register tile is microkernel.py's), so
the stamp of a cached kernel here is that of every module of its folder: an edit to any
of them compiles the folder's kernels again rather than reusing stale machine code.
"""

from __future__ import annotations

import os
from pathlib import Path

from numba import njit, types
from numba.extending import intrinsic

from ..files import user_cache_folder


def numba_cache_dir() -> Path:
    """Where portgemm's compiled numba kernels are kept (unless $NUMBA_CACHE_DIR is set)."""
    return user_cache_folder() / "numba"


def folder_stamp(folder: str) -> tuple:
    """(name, modification time, size) of every Python module in ``folder``."""
    found = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            stat = os.stat(os.path.join(folder, name))
            found.append((name, stat.st_mtime, stat.st_size))
    return tuple(found)


def _function_cache_class():
    """A numba FunctionCache whose locators are $NUMBA_CACHE_DIR, then our folder; None
    when this numba has no such classes (then nothing is cached on disk)."""
    try:
        from numba.core import caching
    except ImportError:
        return None
    # public names since numba 0.61 or so; underscored before (the dpex stack pins 0.59)
    user_provided = (getattr(caching, "UserProvidedCacheLocator", None)
                     or getattr(caching, "_UserProvidedCacheLocator", None))
    impl = (getattr(caching, "CompileResultCacheImpl", None)
            or getattr(caching, "_CompileResultCacheImpl", None))
    function_cache = getattr(caching, "FunctionCache", None)
    if user_provided is None or impl is None or function_cache is None:
        return None

    class FolderStamped(user_provided):
        """numba's locator for $NUMBA_CACHE_DIR, its source stamp the folder's modules."""

        def get_source_stamp(self):
            return folder_stamp(os.path.dirname(self._py_file))

    class PortgemmCacheLocator(FolderStamped):
        """The same, pointed at portgemm's folder instead."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(numba_cache_dir(),
                                            self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            # skip the parent's "only when $NUMBA_CACHE_DIR is set" test, keep the rest
            # (the source file exists, the folder can be made and written)
            return super(user_provided, cls).from_function(py_func, py_file)

    class PortgemmCacheImpl(impl):
        _locator_classes = [FolderStamped, PortgemmCacheLocator]

    class PortgemmFunctionCache(function_cache):
        _impl_class = PortgemmCacheImpl

    return PortgemmFunctionCache


_FUNCTION_CACHE = _function_cache_class()


def cached_njit(**options):
    """``numba.njit(**options)`` cached on disk in :func:`numba_cache_dir` (a decorator).

    Where no folder is writable, or numba lacks the classes used, the kernels are
    compiled in every process instead: slower first calls, never an error.
    """
    def decorate(function):
        dispatcher = njit(**options)(function)
        if _FUNCTION_CACHE is not None:
            try:
                # what Dispatcher.enable_caching() (cache=True) does, with our locators
                dispatcher._cache = _FUNCTION_CACHE(function)
            except RuntimeError:  # "no locator available": no writable folder
                pass
        return dispatcher
    return decorate


@intrinsic
def prefer_wide_vectors(typingctx):
    """Called first thing in a numba kernel, asks LLVM for 512-bit vectors in that function
    (and what it inlines). LLVM's tuning for Intel's AVX-512 cores prefers 256-bit
    vectors, numba passes no per-function width, and the process-wide NUMBA_CPU_FEATURES
    would change every numba function of the user's too. On a CPU without AVX-512 the
    widest legal vectors stay the limit. The threaded path's earlier 4 x 6 kernel ran 1.5x
    faster with it on a 2-core Xeon (Emerald Rapids): 210 against 141 GFLOPS at 2048 with
    2 threads.
    """
    def codegen(context, builder, signature, args):
        # an LLVM string attribute on the function being compiled; llvmlite's add()
        # takes only attributes without values, so the set is filled directly (a hint:
        # where an llvmlite keeps attributes otherwise, it is left out)
        try:
            set.add(builder.function.attributes, '"prefer-vector-width"="512"')
        except (AttributeError, TypeError):
            pass
        return context.get_dummy_value()

    return types.void(), codegen
