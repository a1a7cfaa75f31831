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

from .operands import is_device_array, native_order


def to_device(array, device: Any = None):
    """A ``pyopencl.array.Array`` copy of ``array`` on portgemm's queue of ``device``, in
    the machine's byte order (the kernels read no other)."""
    import pyopencl.array as cl_array

    from .runtime.queue import Queue

    queue = Queue.for_device(device)
    with queue.lock:  # its copy takes its turn with the queue's other commands
        return cl_array.to_device(queue.cl_queue, native_order(np.ascontiguousarray(array)),
                                  allocator=queue.allocator)


def to_host(array, out: np.ndarray | None = None) -> np.ndarray:
    """A device array's values in a numpy array (``out`` when given), as ``array.get()``
    reads them, but in turn with the commands portgemm queues there from other threads
    (:attr:`Queue.lock`): NVIDIA's driver crashed the process when one thread's copies
    met another's portgemm commands on a queue (docs/known-issues.md). A numpy array is
    returned as it is (copied into ``out`` when given)."""
    from .runtime.queue import Queue

    if not is_device_array(array):
        if out is None:
            return np.asarray(array)
        np.copyto(out, array)
        return out
    with Queue.for_cl_queue(array.queue).lock:
        return array.get(ary=out)


def empty_pinned(shape, dtype=np.float32, device: Any = None) -> np.ndarray:
    """A numpy array in pinned host memory of ``device``'s context (see
    :func:`portgemm.backends.transfers.empty_pinned`)."""
    from .backends.transfers import empty_pinned as pinned

    return pinned(shape, dtype, device)
