"""Operands that live where the GEMM runs: device arrays and pinned host arrays.

    q = portgemm.Queue.for_device("gpu")            # portgemm's queue on that device
    a_dev = portgemm.to_device(a, device="gpu")     # a pyopencl.array.Array on q.cl_queue
    c_dev = portgemm.matmul(a_dev, b_dev)           # stays on the device, same queue
    c = portgemm.to_host(c_dev)                     # back to numpy (c_dev.get(), in turn)

A ``pyopencl.array.Array`` made by your own pyopencl code works as well: portgemm builds
its kernels in that array's context and runs them on its queue. ``empty_pinned`` gives a
numpy array in page-locked memory, which a discrete GPU reads and writes by DMA at the
bus's full speed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .operands import as_array, is_device_array


def to_device(array, device: Any = None):
    """A ``pyopencl.array.Array`` copy of ``array`` on portgemm's queue of ``device``, in
    the machine's byte order (the kernels read no other)."""
    import pyopencl.array as cl_array

    from .runtime.queue import Queue

    if is_device_array(array):  # numpy made an object array of it
        raise TypeError("to_device takes a numpy array (or what numpy reads as one); this "
                        "one is on a device already: portgemm.to_host(x) brings it back")
    host = as_array(array)  # a masked array refused, as matmul refuses it
    if not host.flags.c_contiguous:  # (np.ascontiguousarray made a 0-d array 1-d)
        host = np.ascontiguousarray(host)
    queue = Queue.for_device(device)
    with queue.lock:  # its copy takes its turn with the queue's other commands
        return cl_array.to_device(queue.cl_queue, host, allocator=queue.allocator)


def to_host(array, out: np.ndarray | None = None) -> np.ndarray:
    """A device array's values in a numpy array (``out`` when given), as ``array.get()``
    reads them, but in turn with the commands portgemm queues there from other threads
    (:attr:`Queue.lock`): NVIDIA's driver crashed the process when one thread's copies
    met another's portgemm commands on a queue (docs/known-issues.md). A numpy array is
    returned as it is (copied into ``out`` when given).

    ``out`` may be of any layout, as numpy's ``copyto`` takes it (ValueError for another
    shape), and the device array any view (``c_dev[:, 1:3]``, ``c_dev.T``): what is not
    a plain C-contiguous copy goes through a C-ordered array first, rather than raw bytes
    laid into ``out`` in its own order (rows scrambled before)."""
    from .runtime.queue import Queue

    if not is_device_array(array):
        if out is None:
            return np.asarray(array)
        np.copyto(out, array)
        return out
    if out is not None and tuple(out.shape) != tuple(array.shape):
        raise ValueError(f"out has shape {tuple(out.shape)}, the array {tuple(array.shape)}")
    plain = out is None or (out.flags.c_contiguous and out.dtype == array.dtype)
    queue = Queue.for_array(array)
    with queue.lock:
        if array.flags.c_contiguous and plain:
            return array.get(ary=out)
        values = array.get() if array.flags.c_contiguous else _strided_values(queue, array)
    if out is None:
        return np.ascontiguousarray(values)
    np.copyto(out, values)
    return out


def _strided_values(queue, array) -> np.ndarray:
    """A device view that is not C-contiguous, read as numpy reads a view: the bytes its
    elements span, brought back in one copy, then seen through the view's strides."""
    itemsize = array.dtype.itemsize
    low = sum(min(0, (n - 1) * s) for n, s in zip(array.shape, array.strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(array.shape, array.strides))
    span = np.empty(high - low + itemsize, np.uint8)
    if array.size:
        queue.copy(span, array.base_data, src_offset=array.offset + low,
                   wait_for=array.events or None)
    return np.ndarray(array.shape, array.dtype, span, -low, array.strides)


def copy_into(out, c, *, wait: bool):
    """``out`` holding C's values (``c``: a C-contiguous array of the same shape and
    dtype, numpy or on the device, of either kind whatever ``out``'s). A copy between
    device arrays is queued after C's commands on C's queue, waited for when ``wait``;
    one from the host is waited for (its source may be a temporary)."""
    from .runtime.queue import Queue

    if not is_device_array(out):
        if is_device_array(c):
            return to_host(c, out=out)
        np.copyto(out, c)
        return out
    if not is_device_array(c):  # numpy's C into a device out (at an offset, say)
        Queue.for_array(out).copy(out.base_data, np.ascontiguousarray(c),
                                  dst_offset=out.offset, wait_for=out.events or None)
        return out
    event = Queue.for_array(c).copy(out.base_data, c.base_data, byte_count=c.nbytes,
                                    dst_offset=out.offset, src_offset=c.offset,
                                    wait_for=(c.events + out.events) or None)
    out.add_event(event)
    if wait:
        event.wait()
    return out


def empty_pinned(shape, dtype=np.float32, device: Any = None) -> np.ndarray:
    """A numpy array in pinned host memory of ``device``'s context (see
    :func:`portgemm.backends.transfers.empty_pinned`)."""
    from .backends.transfers import empty_pinned as pinned

    return pinned(shape, dtype, device)
