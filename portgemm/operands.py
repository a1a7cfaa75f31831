"""Checking GEMM operands and describing their memory layout for the kernels."""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass

import numpy as np

from .errors import ParameterError

SUPPORTED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
MAX_ELEMENTS = 2**31 - 1  # kernels index with 32-bit int


@dataclass(frozen=True)
class Operand:
    """A matrix as a kernel reads it: contiguous data, its order and leading dimension."""

    data: np.ndarray  # C- or F-contiguous (a numpy or a pyopencl array), never copied
    colmajor: bool
    ld: int


def is_device_array(x) -> bool:
    """True for a ``pyopencl.array.Array``: memory on an OpenCL device, used in place.
    (Without pyopencl.array imported there can be none: nothing is imported here. While
    another thread imports it, the module is listed before it defines ``Array``, and
    there is none yet either.)"""
    array_type = getattr(sys.modules.get("pyopencl.array"), "Array", None)
    return array_type is not None and isinstance(x, array_type)


def host_arrays_only(a, b, backend: str) -> None:
    """TypeError when a backend that reads host memory is given device arrays."""
    if is_device_array(a) or is_device_array(b):
        raise TypeError(f"the {backend} backend takes numpy arrays; pyopencl arrays live on an "
                        f"OpenCL device (use backend='opencl', or .get() them first)")


def check_out(out, shape: tuple[int, ...], dtype) -> None:
    """``out`` must be a writable array of C's shape (M, N) and the operands' dtype; a
    device array must also be C-contiguous (a numpy array of any layout receives C
    through a copy: :func:`written_apart`). TypeError where it is no array, as numpy's;
    ParameterError for another shape or dtype (no cast), a read-only or non-contiguous
    device one."""
    if not (isinstance(out, np.ndarray) or is_device_array(out)):
        raise TypeError(f"out must be an array (numpy's, or a device array), got "
                        f"{type(out).__name__}")
    if tuple(out.shape) != tuple(shape) or out.dtype != dtype:
        raise ParameterError(f"out must be a {tuple(shape)} {np.dtype(dtype)} array, "
                             f"got {tuple(out.shape)} {out.dtype}")
    if is_device_array(out) and not out.flags.c_contiguous:
        raise ParameterError("a device array as out must be C-contiguous (C is written "
                             "row by row)")
    if not getattr(out.flags, "writeable", True):  # device arrays have no such flag
        raise ParameterError("out is read-only")


def written_apart(out, *operands) -> bool:
    """Whether C must be made apart and then copied into ``out``, as numpy does it: where
    ``out`` shares memory with an operand, is not C-contiguous (the kernels write C row
    by row), or is a device array at an offset into its buffer (a kernel's argument
    starts at its buffer's start)."""
    return (not out.flags.c_contiguous or (is_device_array(out) and out.offset > 0)
            or overlaps(out, *operands))


def of_another_kind(out, *operands) -> bool:
    """Whether ``out`` is numpy where C is made on the device (an operand is a device
    array), or the reverse: a stack's products then fill a C of their own kind, copied
    into ``out`` after (:func:`copy_into`)."""
    return is_device_array(out) != any(is_device_array(x) for x in operands)


def overlaps(out, *operands) -> bool:
    """Whether writing ``out`` may change an operand: numpy arrays whose memory may
    overlap (their bounds, as ``numpy.may_share_memory`` tells), or device arrays of one
    buffer. numpy then computes C apart and copies it in; so do :func:`portgemm.gemm`
    and :func:`portgemm.matmul` (a kernel writing C would overwrite what it still reads)."""
    for x in operands:
        if is_device_array(out) and is_device_array(x):
            if out.base_data == x.base_data:
                return True
        elif not is_device_array(out) and not is_device_array(x):
            if np.may_share_memory(out, x):
                return True
    return False


def native_order(x):
    """``x`` in the machine's byte order: a byte-swapped array (read from a file of
    another machine's order, say) copied into it, any other returned as it is."""
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        return x.astype(x.dtype.newbyteorder("="))
    return x


def as_array(x):
    """An operand as the kernels take it: a device array as it is, anything else a numpy
    array in the machine's byte order. A masked array is refused (TypeError): its mask
    would be dropped and the values under it multiplied as if they were data."""
    if is_device_array(x):
        return x
    if hasattr(x, "__sycl_usm_array_interface__"):  # np.asarray made an object array of it
        raise TypeError(f"SYCL USM arrays ({type(x).__module__}.{type(x).__name__}: dpctl, "
                        f"dpnp) are not taken: bring them to numpy first (dpctl.tensor."
                        f"asnumpy(x), dpnp.asnumpy(x))")
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError("masked arrays are not taken (their mask would be ignored): pass "
                        "x.filled(0), or x.data to use the values under the mask")
    return native_order(np.asarray(x))


def check_operands(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Validate A (M x K) and B (K x N); return them as arrays of one supported dtype
    (a ``pyopencl.array.Array`` is kept as it is: it stays on its device; a byte-swapped
    numpy array is copied into the machine's order).

    A dimension may be 0, as in numpy: ``(M, 0) @ (0, N)`` is an M x N zero matrix and
    M = 0 or N = 0 gives an empty one (:func:`portgemm.gemm` runs no kernel for those).
    ValueError: not 2-D, inner dimensions differ, or too large.
    TypeError: a dtype other than float32/float64, or the two dtypes differ.
    """
    a, b = as_array(a), as_array(b)
    for label, x in (("a", a), ("b", b)):
        if x.ndim != 2:
            raise ValueError(f"{label} must be a 2-D matrix, got {x.ndim}-D shape {x.shape}")
    check_dtypes(a, b)
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"shapes {a.shape} and {b.shape} do not align: a has {a.shape[1]} "
                         f"columns, b has {b.shape[0]} rows")
    m, k = a.shape
    n = b.shape[1]
    if max(m * k, k * n, m * n) > MAX_ELEMENTS:
        raise ParameterError(f"a matrix of {max(m * k, k * n, m * n)} elements exceeds the "
                             f"kernels' 32-bit index limit of {MAX_ELEMENTS}")
    return a, b


def check_dtypes(a, b) -> None:
    """TypeError unless A and B are both float32 or both float64."""
    for label, x in (("a", a), ("b", b)):
        if x.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"{label} has dtype {x.dtype}; supported dtypes are float32 "
                            f"and float64")
    if a.dtype != b.dtype:
        raise TypeError(f"a is {a.dtype} and b is {b.dtype}: both must be float32 or both "
                        f"float64 (convert one with .astype)")


def check_poison(poison) -> None:
    """ParameterError unless ``poison`` (the value C is filled with before the kernels) is
    None or a real number, for every backend alike (dpex's fill raised a RuntimeError for
    a string; a list or a complex number was taken silently)."""
    if poison is None:
        return
    if isinstance(poison, numbers.Real) and not isinstance(poison, bool):
        try:
            float(poison)  # as the fill takes it (10**400 overflowed there)
            return
        except OverflowError:
            pass
    raise ParameterError(f"poison must be a real number (NaN, say) that a float holds, or "
                         f"None; got {type(poison).__name__} {poison!r}")


def is_empty_product(a: np.ndarray, b: np.ndarray) -> bool:
    """True when M, N or K is 0: C is then empty or all zeros, and no kernel is needed."""
    return 0 in a.shape or 0 in b.shape


def check_one_context(a, b, out=None) -> None:
    """ParameterError where the device arrays among A, B and ``out`` belong to different
    OpenCL contexts (pyopencl answered INVALID_CONTEXT from deep inside): arrays of one
    device made by two pieces of code, or before and after ``clear_caches()``, which
    makes portgemm's contexts anew."""
    arrays = [(label, x) for label, x in (("a", a), ("b", b), ("out", out))
              if is_device_array(x)]
    if len({x.context for _, x in arrays}) > 1:
        raise ParameterError(
            "the device arrays of one call must share an OpenCL context; here "
            + ", ".join(f"{label} is of {x.context!r}" for label, x in arrays)
            + " (arrays made before portgemm.clear_caches() are of its old context: make "
              "them again with portgemm.to_device, or bring them through the host)")


def check_device_memory(device, a: np.ndarray, b: np.ndarray,
                        workspace: tuple[int, ...] = ()) -> None:
    """ParameterError naming the limit when A, B, C or a plan's ``workspace`` buffers
    (element counts: LaunchPlan.workspace) would not fit on ``device``: one buffer over
    its ``max_mem_alloc_size``, or all together over its ``global_mem_size``. Devices
    without those attributes (the host CPU) are not checked.

    Run before any buffer is made, so the error is ours and not the driver's
    INVALID_BUFFER_SIZE (or an out-of-memory failure half-way through a call).
    """
    m, k = a.shape
    n = b.shape[1]
    buffers = product_buffers(m, n, k)
    # split-K's partial products (a smaller KSPLIT needs less) or a packed operand
    buffers += [(f"workspace W{index}", elements, "{count} {dtype} values of split-K's "
                 "partial products or a packed operand")
                for index, elements in enumerate(workspace)]
    problem = memory_problem(device, buffers, a.dtype)
    if problem:
        raise ParameterError(problem)


# A buffer a call would make: (name, elements, what it holds: a template of {count},
# {dtype} and the rows and columns, filled in only for the message; every call checks).
Buffer = tuple[str, int, str]


def product_buffers(m: int, n: int, k: int) -> list[Buffer]:
    """The buffers of an m x k times k x n product."""
    return [("a", m * k, f"{m} x {k} {{dtype}}"), ("b", k * n, f"{k} x {n} {{dtype}}"),
            ("c", m * n, f"{m} x {n} {{dtype}}")]


def memory_problem(device, buffers: list[Buffer], dtype) -> str:
    """Why ``buffers`` would not fit on ``device`` ('' when they do): one over its
    ``max_mem_alloc_size``, or all together over its ``global_mem_size``; a device
    without those (the host CPU) takes anything."""
    max_alloc = getattr(device, "max_mem_alloc_size", None)
    global_mem = getattr(device, "global_mem_size", None)
    itemsize = np.dtype(dtype).itemsize
    if max_alloc is not None:
        for name, elements, what in buffers:
            if elements * itemsize > max_alloc:
                held = what.format(count=elements, dtype=np.dtype(dtype))
                return (f"{name} ({held}) needs {_mib(elements * itemsize)} in one buffer, "
                        f"over the device's max_mem_alloc_size of {_mib(max_alloc)} on "
                        f"{getattr(device, 'description', device)}")
    total = sum(elements for _, elements, _ in buffers) * itemsize
    if global_mem is not None and total > global_mem:
        names = [name for name, _, _ in buffers]
        together = (", ".join(names[:-1]) + " and " + names[-1]) if len(names) > 1 else names[0]
        return (f"{together} need {_mib(total)} together, over the device's "
                f"global_mem_size of {_mib(global_mem)} on "
                f"{getattr(device, 'description', device)}")
    return ""


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:,.1f} MiB ({nbytes:,} bytes)"


def order(x) -> str:
    """"F" for a column-major array that is not also row-major (a single row or column is
    both, and is read as row-major), else "C": how :func:`as_operand` reads ``x``."""
    return "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"


def layout_of(a, b) -> str:
    """A's order and B's: "CC", "CF", "FC" or "FF"."""
    return order(a) + order(b)


def as_operand(x) -> Operand:
    """Describe ``x`` for a kernel; copy only a view that is neither C- nor F-contiguous
    (a numpy one here; a device view of whole rows' or columns' runs, such as
    ``b_dev[:, 3:9]``, is packed on the device by ``Transfer.input``, as it is laid out
    here; one whose values lie apart both ways is refused)."""
    if x.flags.c_contiguous:
        return Operand(x, False, x.shape[1])
    if x.flags.f_contiguous:  # an F-order array or the transpose of a C-order one
        return Operand(x, True, x.shape[0])
    if is_device_array(x):
        if runs_of(x) is None:
            raise ParameterError("a device array's rows or columns must each lie "
                                 "contiguous (b_dev[:, 3:9] may; b_dev[:, ::2] may not, "
                                 "and pyopencl can neither copy nor read it: take such a "
                                 "view of the numpy array instead)")
        along_rows = runs_along_rows(x)  # as runs_of lays it out
        return Operand(x, not along_rows, x.shape[1] if along_rows else x.shape[0])
    return Operand(np.ascontiguousarray(x), False, x.shape[1])


def runs_of(x) -> tuple[int, int, int] | None:
    """A 2-D view's layout as runs of contiguous values: (how many runs, values a run,
    bytes from one run's start to the next), rows first; None where neither its rows
    nor its columns lie contiguous, or it runs backwards."""
    itemsize = x.dtype.itemsize
    if x.ndim != 2 or any(s <= 0 for n, s in zip(x.shape, x.strides) if n > 1):
        return None
    rows, cols = x.shape
    if runs_along_rows(x):  # a dimension of one has any stride (b_dev[:, 0] as a column)
        return rows, cols, x.strides[0] if rows > 1 else cols * itemsize
    if rows == 1 or x.strides[0] == itemsize:
        return cols, rows, x.strides[1] if cols > 1 else rows * itemsize
    return None


def runs_along_rows(x) -> bool:
    """Whether a 2-D view's runs of contiguous values are its rows (else its columns)."""
    return x.shape[1] == 1 or x.strides[1] == x.dtype.itemsize
