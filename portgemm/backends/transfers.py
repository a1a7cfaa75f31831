"""How operands reach an OpenCL device and C comes back, per device.

Three ways, the cheapest the device allows (:func:`policy_for`):

* ``svm``: the device reads and writes host memory through fine-grained system SVM
  (Intel's CPU runtime): numpy arrays are kernel arguments as they are -- no buffer, no
  copy, whatever their alignment; C is written straight into the result array.
* ``host_ptr``: the device shares host memory (``host_unified_memory``: CPU runtimes,
  integrated GPUs): buffers are made over the arrays with ``USE_HOST_PTR`` (PoCL then
  copies nothing) and C is mapped back, which on such a device moves no data.
* ``copy``: a discrete device: operands are copied in, C is copied out.

``PORTGEMM_TRANSFER=copy|host_ptr|svm`` forces one (the tests run every policy on CPU
devices this way); a policy the device cannot do falls back to ``copy``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..caches import memoize
from ..runtime.device import Device
from ..runtime.queue import Event, Queue

TRANSFER_ENV_VAR = "PORTGEMM_TRANSFER"
POLICIES = ("svm", "host_ptr", "copy")


def policy_for(device: Device) -> str:
    return _policy(device, os.environ.get(TRANSFER_ENV_VAR, "").strip().lower())


@memoize(maxsize=64)
def _policy(device: Device, forced: str) -> str:
    possible = _possible(device)
    if forced:
        return forced if forced in possible else "copy"
    return possible[0]


def _possible(device: Device) -> tuple[str, ...]:
    import pyopencl as cl

    handle = device.handle
    found = []
    try:
        if handle.svm_capabilities & cl.device_svm_capabilities.FINE_GRAIN_SYSTEM:
            found.append("svm")
    except (cl.Error, AttributeError):  # OpenCL 1.x: no SVM query
        pass
    try:
        if handle.host_unified_memory:
            found.append("host_ptr")
    except (cl.Error, AttributeError):
        pass
    return tuple(found) + ("copy",)


class Transfer:
    """One call's operands on the device: kernel arguments for A, B, C and workspaces,
    and :meth:`finish`, which makes C's values visible in the host array."""

    def __init__(self, queue: Queue, policy: str):
        self.queue, self.policy = queue, policy
        self._c_host: np.ndarray | None = None
        self._c_buffer = None

    def input(self, data: np.ndarray) -> Any:
        """A read-only argument holding ``data`` (C- or F-contiguous, as it lies)."""
        import pyopencl as cl

        flat = np.ravel(data, order="K")
        if self.policy == "svm":
            return cl.SVM(flat)
        if self.policy == "host_ptr":
            return cl.Buffer(self.queue.context,
                             cl.mem_flags.READ_ONLY | cl.mem_flags.USE_HOST_PTR, hostbuf=flat)
        return self.queue.to_device(data)

    def output(self, c: np.ndarray, fill: float | None) -> tuple[Any, list | None]:
        """The argument C is written through, and the events a kernel must wait for (a
        fill of C with ``fill`` first, when given)."""
        import pyopencl as cl

        self._c_host = c
        if self.policy == "svm":
            if fill is not None:
                c.fill(fill)
            return cl.SVM(c.reshape(-1)), None
        if self.policy == "host_ptr":
            self._c_buffer = cl.Buffer(self.queue.context,
                                       cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR,
                                       hostbuf=c.reshape(-1))
        else:
            self._c_buffer = self.queue.empty(c.nbytes)
        if fill is None:
            return self._c_buffer, None
        event = self.queue.fill(self._c_buffer, c.dtype.type(fill), c.nbytes)
        return self._c_buffer, [event.cl_event]

    def workspace(self, nbytes: int) -> Any:
        """Scratch memory for partial results (never seen by the host)."""
        return self.queue.empty(nbytes)

    def finish(self, last: Event) -> None:
        """Wait for the kernels and make C's values visible in the host array."""
        import pyopencl as cl

        if self.policy == "svm":
            last.wait()
        elif self.policy == "host_ptr":
            mapped, _ = cl.enqueue_map_buffer(self.queue.cl_queue, self._c_buffer,
                                              cl.map_flags.READ, 0, self._c_host.shape,
                                              self._c_host.dtype, is_blocking=True)
            if mapped.ctypes.data != self._c_host.ctypes.data:  # a driver that copied
                self._c_host[...] = mapped
            mapped.base.release()
        else:
            self.queue.to_host(self._c_buffer, self._c_host)
