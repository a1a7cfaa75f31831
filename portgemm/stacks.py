"""numpy's ``matmul`` rules for operands that are not two matrices, on portgemm's 2-D
products.

A 1-D ``a`` is one row and a 1-D ``b`` one column; the result drops that axis again. An
operand of more than two dimensions is a stack of matrices in its last two axes, and the
leading axes of the two stacks broadcast. A stack runs the first of these that applies:
  a stack of A times one B: A's rows one after another, (S·M × K) @ B, C's stack a view
  (no copy where A's stack lies contiguously);
  the whole stack in one launch where the backend can (OpenCL: the NDRange's third
  dimension over the stack, each side's matrices a fixed stride apart, one matrix
  serving every product at a stride of 0);
  one A times a stack of small B: B's matrices side by side, A @ (K × S·N), C's columns
  reordered into the stack (B and C copied, which pays only while a call a matrix
  costs more: SIDE_BY_SIDE_VALUES);
  else a product a pair.
Stacks of device arrays (pyopencl's, both operands) take the same ways but B side by
side, broadcast only a single matrix against a stack, and give C on the device; a pair
at a time, each matrix goes as a view of its stack (the OpenCL backend copies one at an
offset into its buffer to a buffer's start, where a kernel's argument begins).
"""

from __future__ import annotations

from math import prod
from typing import Callable

import numpy as np

from .errors import ParameterError
from .memory import copy_into
from .operands import (MAX_ELEMENTS, as_array, check_dtypes, check_one_context, check_out,
                       is_device_array, of_another_kind, product_buffers, written_apart)

# one 2-D product: (a, b, out) -> C, as portgemm.gemm(...).c with the call's options
Product = Callable[..., object]

# a whole stack in one launch: (A (1 or S, M, K), B (1 or S, K, N), out (S, M, N) or None)
# -> C (S, M, N), or None where it cannot (the backend's run_stack)
StackProduct = Callable[..., object]

# why buffers (operands.Buffer) of a dtype would not fit on the call's device, '' where
# they do (operands.memory_problem): the ways that join a stack's matrices into one take
# them only where the joined matrices fit
MemoryCheck = Callable[[list, np.dtype], str]

# A times a stack of B side by side, where the stack cannot run in one launch, up to B's
# of this many values: past them, copying B and C costs more than a call a matrix (Zen 5,
# Intel's CPU runtime: 1.5-13x faster at 64 x 32 to 128 x 128, 0.6-1.0x at 192 x 192 to
# 512 x 512; bench/stacks.py). One launch ran 1.1-3.5x faster than side by side on an
# H100, 0.5-1.9x on the Zen 5 (bench/results/2026-11-27-stacks).
SIDE_BY_SIDE_VALUES = 128 * 128


def is_plain(a, b) -> bool:
    """Two matrices: the common call, which goes to :func:`portgemm.gemm` untouched."""
    return getattr(a, "ndim", None) == 2 and getattr(b, "ndim", None) == 2


def matmul_stacks(a, b, product: Product, out=None, stack_product: StackProduct | None = None,
                  memory: MemoryCheck | None = None):
    """``a @ b`` by numpy's rules: one :data:`StackProduct` for a whole stack where it is
    given and can (for every stack but A's beside one B), else :data:`Product` for each
    2-D product needed.

    Before any product runs: ValueError for a 0-D operand, inner dimensions that differ,
    stacks that do not broadcast, a stack of numpy arrays beside device arrays or one of
    device arrays that broadcasts more than a single matrix, a matrix past the
    kernels' 32-bit indices, or an ``out`` that is not a writable array of the result's
    shape and dtype (C-contiguous where it is a device array) (ParameterError, a
    ValueError); TypeError for dtypes as
    :func:`portgemm.gemm`. ``memory``: where given, the stack's matrices are joined into
    one (A's rows, B's side by side) only where the joined ones fit the device, and a
    device C's stack, one buffer, that does not fit is a ParameterError.
    """
    a, b = as_array(a), as_array(b)
    for label, x in (("a", a), ("b", b)):
        if x.ndim == 0:
            raise ValueError(f"{label} is 0-D: matmul needs a vector or a matrix (use * for "
                             f"a scalar)")
    on_device = is_device_array(a) or is_device_array(b)
    if max(a.ndim, b.ndim) > 2 and on_device and not (is_device_array(a)
                                                      and is_device_array(b)):
        raise ValueError(f"a stack of matrices takes numpy arrays or device arrays, not both; "
                         f"here a is {_kind(a)} of shape {a.shape} and b {_kind(b)} of "
                         f"shape {b.shape}")
    check_dtypes(a, b)
    check_one_context(a, b, out)
    a2 = a.reshape((1, a.shape[0])) if a.ndim == 1 else a
    b2 = b.reshape((b.shape[0], 1)) if b.ndim == 1 else b
    m, k = a2.shape[-2:]
    if b2.shape[-2] != k:
        raise ValueError(f"shapes {a.shape} and {b.shape} do not align: a has {k} columns, "
                         f"b has {b2.shape[-2]} rows")
    n = b2.shape[-1]
    try:
        stack = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ValueError(f"the stacks of shapes {a.shape} and {b.shape} do not broadcast: "
                         f"{a2.shape[:-2]} against {b2.shape[:-2]}") from None
    final = stack + (m,) * (a.ndim > 1) + (n,) * (b.ndim > 1)
    count = prod(stack)
    for label, x in (("a", a2), ("b", b2)):
        if on_device and not _one_matrix(x) and prod(x.shape[:-2]) != count:
            raise ValueError(f"device arrays broadcast only a single matrix against a stack; "
                             f"{label} has the stack {x.shape[:-2]} of {stack}")
    largest = max(m * k, k * n, m * n)
    if largest > MAX_ELEMENTS:  # as gemm checks each product
        raise ParameterError(f"a matrix of {largest} elements exceeds the kernels' 32-bit "
                             f"index limit of {MAX_ELEMENTS}")
    if out is not None:
        check_out(out, final, a.dtype)
        if written_apart(out, a, b) or of_another_kind(out, a, b):
            # as numpy does: C made apart, then copied in
            return copy_into(out, matmul_stacks(a, b, product, None, stack_product, memory),
                             wait=False)
    full = stack + (m, n)
    target = None if out is None else _shaped(out, full)
    c = _product_of_stacks(a2, b2, stack, product, target, stack_product,
                           memory or (lambda buffers, dtype: ""))
    if out is not None:
        return out
    c = _shaped(c, final)
    return c[()] if c.ndim == 0 and not is_device_array(c) else c  # numpy gives a scalar


def _product_of_stacks(a, b, stack: tuple, product: Product, out,
                       stack_product: StackProduct | None, memory: MemoryCheck):
    """C of shape stack + (M, N) for A (..., M, K) and B (..., K, N), into ``out`` if given."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    count = prod(stack)
    if a.ndim == 2 and b.ndim == 2:
        return product(a, b, out)
    if not count:  # no product, but the variant and parameters are checked, as gemm does
        product(_empty(a, (0, k)), _empty(b, (k, n)), None)
    flat = _reshapes(a) and _reshapes(b)
    # A's rows one after another (reshape copies only a strided numpy stack)
    # (not past the kernels' 32-bit index: the stack as one matrix could be, its
    # matrices are not; the one launch below takes it)
    if (_one_matrix(b) and flat and count * m * max(k, n) <= MAX_ELEMENTS
            and not memory(product_buffers(count * m, n, k), a.dtype)):
        rows = _stacked(a, stack).reshape(count * m, k)
        c = product(rows, _shaped(b, (k, n)),
                    None if out is None else out.reshape(count * m, n))
        return _shaped(c, stack + (m, n)) if out is None else out
    # one launch (gemm answers an empty product)
    if stack_product is not None and flat and count and m and n and k:
        whole = stack_product(_as_stack(a, stack), _as_stack(b, stack),
                              None if out is None else _shaped(out, (count, m, n)))
        if whole is not None:
            return _shaped(whole, stack + (m, n)) if out is None else out
    resident = next((x for x in (a, b) if is_device_array(x)), None)
    if resident is not None:  # a pair at a time, each matrix a view of its stack
        import pyopencl.array as cl_array

        whole_c = [("c's stack", count * m * n, f"{count} x {m} x {n} {{dtype}}")]
        problem = memory(whole_c, a.dtype) if out is None else ""
        if problem:
            raise ParameterError(f"{problem}: a device C is one array")
        from .runtime.queue import Queue

        # on the queue the products run on (an out-of-order one's in-order stand-in): each
        # product's C is of that queue, and pyopencl copies only between arrays of one
        on = Queue.for_array(resident).cl_queue
        c = cl_array.zeros(on, stack + (m, n), a.dtype) if out is None else out
        if not (count and m and n and k):  # numpy's answer: empty, or zeros for K = 0
            c.fill(0)
            return c
        for index in np.ndindex(*stack):
            c[index] = product(_matrix(a, index), _matrix(b, index), None)
        return c
    if (_one_matrix(a) and k * n <= SIDE_BY_SIDE_VALUES
            and count * n * max(k, m) <= MAX_ELEMENTS
            and not memory(product_buffers(m, count * n, k), a.dtype)):
        # B's matrices side by side, then C's column blocks into a stack
        columns = _stacked(b, stack).reshape(count, k, n)
        joined = np.ascontiguousarray(columns.transpose(1, 0, 2)).reshape(k, count * n)
        wide = product(a.reshape(m, k), joined, None)
        parts = wide.reshape(m, count, n).transpose(1, 0, 2).reshape(stack + (m, n))
        if out is None:
            return np.ascontiguousarray(parts)
        out[...] = parts
        return out
    c = np.empty(stack + (m, n), a.dtype) if out is None else out
    for index in np.ndindex(*stack):
        product(_matrix(a, index), _matrix(b, index), c[index])
    return c


def _reshapes(x) -> bool:
    """Whether ``x`` reshapes to a stack or to rows (a device stack must be
    C-contiguous: pyopencl cannot copy one that is not; such a stack goes a pair at a
    time, each matrix a view that the backend reads)."""
    return not is_device_array(x) or x.flags.c_contiguous


def _empty(x, shape: tuple):
    """An empty operand of ``shape`` of ``x``'s kind (on its queue for a device array)."""
    if is_device_array(x):
        import pyopencl.array as cl_array

        return cl_array.empty(x.queue, shape, x.dtype)
    return np.empty(shape, x.dtype)


def _one_matrix(x) -> bool:
    """True when every matrix of the stack ``x`` is the same one (its stack axes are 1)."""
    return all(size == 1 for size in x.shape[:-2])


def _stacked(x, stack: tuple):
    """``x`` with the stack's shape: itself where it has as many matrices (a broadcast
    view is read-only, and a read-only operand costs a copy on its way to the device)."""
    if prod(x.shape[:-2]) == prod(stack):
        return x
    return np.broadcast_to(x, stack + x.shape[-2:])


def _as_stack(x, stack: tuple):
    """``x`` as a 3-D stack for one launch: (1, rows, cols) where it is one matrix (it then
    serves every product), else one matrix a product of the stack."""
    if _one_matrix(x):
        return _shaped(x, (1,) + x.shape[-2:])
    return _shaped(_stacked(x, stack), (prod(stack),) + x.shape[-2:])


def _shaped(x, shape: tuple):
    """``x`` reshaped to ``shape``, or itself where it has it (a device array's reshape
    makes a new array object each time: most of a small call's own time)."""
    return x if x.shape == tuple(shape) else x.reshape(shape)


def _matrix(x, index: tuple):
    """The matrix of ``x`` at a stack index, by broadcasting: a view of ``x`` itself."""
    own = index[len(index) - (x.ndim - 2):] if x.ndim > 2 else ()
    return x[tuple(i if size > 1 else 0 for i, size in zip(own, x.shape[:-2]))]


def _kind(x) -> str:
    return "a device array" if is_device_array(x) else "a numpy array"
