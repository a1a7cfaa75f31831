"""The OpenCL C sources in ``kernels_cl/``: where they are, and the parameters each declares.

A kernel file declares its own parameters, each with a default and a one-line comment::

    #ifndef TILE_Y
    #define TILE_Y 4    // rows of C per work-item, >= 1
    #endif

so it compiles alone, and :func:`kernel_parameters` reads those declarations back: the
Python side takes the names (and, where it wants, the defaults and documentation) from
the kernel instead of repeating them. ``#include "file"`` lines are inlined when a source
is read, so the text handed to the compiler (and hashed by the program caches) is whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..caches import memoize

FOLDER = "kernels_cl"
_PACKAGE = Path(__file__).resolve().parents[1]
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.MULTILINE)
_DECLARATION = re.compile(
    r"^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+\1\s+(\S+)[ \t]*(?://[ \t]*(.*))?$",
    re.MULTILINE)


@dataclass(frozen=True)
class KernelParameter:
    """One ``-D`` parameter a kernel file declares: its default and its comment."""

    name: str
    default: str
    doc: str

    @property
    def int_default(self) -> int:
        return int(self.default)


@memoize
def kernels_dir() -> Path:
    """``portgemm/kernels_cl`` in an installed wheel, else ``kernels_cl/`` of the checkout."""
    for folder in (_PACKAGE / FOLDER, _PACKAGE.parent / FOLDER):
        if (folder / "common.h").is_file():
            return folder
    raise FileNotFoundError(f"portgemm's OpenCL sources ({FOLDER}/) are missing beside "
                            f"{_PACKAGE}: a broken install; reinstall portgemm")


@memoize
def read_kernel(file_name: str) -> str:
    """A kernel file's text with its ``#include "..."`` lines replaced by the files."""
    return _inline(file_name, ())


def _inline(file_name: str, stack: tuple[str, ...]) -> str:
    if file_name in stack:
        raise ValueError(f"{FOLDER}/{file_name} includes itself: {' -> '.join(stack)}")
    text = (kernels_dir() / file_name).read_text()
    return _INCLUDE.sub(lambda m: _inline(m.group(1), stack + (file_name,)), text)


@memoize
def kernel_parameters(file_name: str, *, own: bool = True) -> dict[str, KernelParameter]:
    """The ``-D`` parameters a kernel file declares, in order. ``own``: leave out those of
    the files it includes (the prelude's REAL, A_COLMAJOR, ...)."""
    text = (kernels_dir() / file_name).read_text() if own else read_kernel(file_name)
    return {m.group(1): KernelParameter(m.group(1), m.group(2), (m.group(3) or "").strip())
            for m in _DECLARATION.finditer(text)}
