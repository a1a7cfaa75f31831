"""pyopencl's cache of kernel invokers, off where its folder cannot be written.

pyopencl keeps the Python code that sets a kernel's arguments in a pytools database in
the user's cache folder (``~/.cache/pytools``), made on the first kernel of a process.
Where that folder cannot be made or written (a read-only home, a read-only
``XDG_CACHE_HOME``) the first kernel raised PermissionError, so every call failed,
though portgemm's own caches fall back. Then that cache is turned off
(``PYOPENCL_NO_CACHE``): the invokers are generated afresh in each process instead.
"""

from __future__ import annotations

import os
import sys

_settled = False


def folder_usable(folder: str) -> bool:
    """Whether ``folder`` exists or can be made, and files can be made in it."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def pytools_folder() -> str:
    """The folder pytools keeps its databases in (as pytools finds it)."""
    if sys.platform == "darwin" and os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "pytools")
    import platformdirs

    return platformdirs.user_cache_dir("pytools", "pytools")


def settle() -> None:
    """Turn pyopencl's invoker cache off where its folder cannot be written (once a
    process, before its first kernel)."""
    global _settled
    if _settled:
        return
    _settled = True
    if folder_usable(pytools_folder()):
        return
    os.environ["PYOPENCL_NO_CACHE"] = "1"  # read where pyopencl is imported
    pyopencl = sys.modules.get("pyopencl")
    if pyopencl is not None and "pyopencl.invoker" not in sys.modules:
        pyopencl._PYOPENCL_NO_CACHE = True  # imported already: its flag itself
