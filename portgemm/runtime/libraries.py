"""Loading shared libraries by absolute path, for drivers whose dependencies the dynamic
linker would not find by itself (pip puts them in ``<prefix>/lib``, off its search path).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Iterable


def find_library(name: str, dirs: Iterable[Path]) -> Path | None:
    """The first ``dir/name`` that is a file."""
    return next((Path(d) / name for d in dirs if (Path(d) / name).is_file()), None)


def load_library(path: Path, *, global_scope: bool = True, lazy: bool = False) -> None:
    """dlopen ``path``; ``global_scope`` makes its symbols visible to libraries loaded
    after it (RTLD_GLOBAL), ``lazy`` binds symbols on first use (RTLD_LAZY; ctypes.CDLL
    alone always binds them at once). OSError when it does not load."""
    mode = (os.RTLD_LAZY if lazy else os.RTLD_NOW) | (
        os.RTLD_GLOBAL if global_scope else os.RTLD_LOCAL)
    if not lazy:
        ctypes.CDLL(str(path), mode=mode)
        return
    libc = ctypes.CDLL(None)
    libc.dlopen.restype = ctypes.c_void_p
    libc.dlopen.argtypes = (ctypes.c_char_p, ctypes.c_int)
    if not libc.dlopen(str(path).encode(), mode):
        raise OSError(f"dlopen failed for {path}")
