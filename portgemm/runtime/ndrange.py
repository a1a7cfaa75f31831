"""Range and NDRange in SYCL order: the LAST dimension varies fastest.

OpenCL numbers dimensions the other way (dimension 0 fastest). The reversal happens in
exactly one place, :meth:`NDRange.opencl_sizes`, so kernels written for portgemm read
``get_global_id(0)`` as the last SYCL dimension (the column of a row-major matrix).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from math import prod


def _one_size(value, what: str) -> int:
    """An integer size (Python's, numpy's: anything with ``__index__``); TypeError for a
    float, a string and the like, which ``int()`` would have cut or parsed."""
    if isinstance(value, bool):
        raise TypeError(f"a {what} size must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"a {what} size must be an integer, got {value!r}") from None


def _sizes(values, what: str) -> tuple[int, ...]:
    if _is_integer(values):
        values = (values,)
    elif isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"a {what} is 1 to 3 integers, got {values!r}")
    sizes = tuple(_one_size(v, what) for v in values)
    if not 1 <= len(sizes) <= 3:
        raise ValueError(f"a {what} has 1 to 3 dimensions, got {len(sizes)}")
    if any(v < 1 for v in sizes):
        raise ValueError(f"every {what} size must be >= 1, got {sizes}")
    return sizes


def _is_integer(value) -> bool:
    """One integer size (a numpy array has ``__index__`` too, which raises unless it
    holds one integer: an array of sizes is a sequence)."""
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def round_up(value: int, multiple: int) -> int:
    """The smallest multiple of ``multiple`` that is >= ``value``."""
    return -(-value // multiple) * multiple


@dataclass(frozen=True)
class Range:
    """A 1-3 dimensional extent, SYCL order (last dimension fastest)."""

    sizes: tuple[int, ...]

    def __init__(self, *sizes):
        if len(sizes) == 1 and not _is_integer(sizes[0]):
            sizes = sizes[0]  # Range((8, 4)) as Range(8, 4)
        object.__setattr__(self, "sizes", _sizes(sizes, "range"))

    @property
    def dims(self) -> int:
        return len(self.sizes)

    @property
    def size(self) -> int:
        return prod(self.sizes)

    def __iter__(self):
        return iter(self.sizes)

    def __getitem__(self, i: int) -> int:
        return self.sizes[i]


@dataclass(frozen=True)
class NDRange:
    """A global range split into work-groups of ``local`` size, SYCL order.

    As in SYCL, every global size must be a multiple of the local size in that
    dimension; :meth:`covering` builds the smallest such NDRange over a wanted extent.
    """

    global_range: Range
    local_range: Range

    def __init__(self, global_range, local_range):
        g = global_range if isinstance(global_range, Range) else Range(global_range)
        l = local_range if isinstance(local_range, Range) else Range(local_range)
        if g.dims != l.dims:
            raise ValueError(f"global {g.sizes} and local {l.sizes} differ in dimensions")
        bad = [i for i in range(g.dims) if g[i] % l[i]]
        if bad:
            raise ValueError(
                f"global size {g.sizes} is not a multiple of local size {l.sizes} in "
                f"dimension {bad[0]} (SYCL order); use NDRange.covering() to round up")
        object.__setattr__(self, "global_range", g)
        object.__setattr__(self, "local_range", l)

    @classmethod
    def covering(cls, extent, local) -> "NDRange":
        """The smallest NDRange whose global range covers ``extent`` (rounded up)."""
        e, l = Range(extent), Range(local)
        if e.dims != l.dims:
            raise ValueError(f"extent {e.sizes} and local {l.sizes} differ in dimensions")
        return cls(tuple(round_up(e[i], l[i]) for i in range(e.dims)), l)

    @property
    def dims(self) -> int:
        return self.global_range.dims

    @property
    def group_range(self) -> tuple[int, ...]:
        """Number of work-groups per dimension, SYCL order."""
        return tuple(g // l for g, l in zip(self.global_range, self.local_range))

    @property
    def work_group_size(self) -> int:
        return self.local_range.size

    def opencl_sizes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(global_work_size, local_work_size) in OpenCL order (dimension 0 fastest)."""
        return tuple(reversed(self.global_range.sizes)), tuple(reversed(self.local_range.sizes))
