"""Operands resident on the ranks' devices: what moves between a device and MPI.

``gemm_blocks`` given ``pyopencl.array.Array`` blocks keeps A, B and C on each rank's
device for the whole call: local products run on device arrays (``portgemm.gemm`` with
device operands, C written with ``out=`` and parts added on the device), and only what
must cross ranks leaves the device, by this route:

    owner:    device --DMA--> pinned host buffer --MPI-->
    receiver:                 pinned host buffer --DMA--> device

or, for SUMMA's panels between ranks of one node, through one shared window that both
map (:mod:`.staging`: device --DMA--> window --DMA--> device, no copy through MPI).

Pinned (page-locked) host memory is what a discrete GPU's copy engine reads and writes at
the bus's full speed (about 55 GB/s on the H200 against 9 GB/s from pageable memory).
A block is moved in chunks of :func:`.staging.chunk_bytes` (``$PORTGEMM_MPI_CHUNK_BYTES``, default
32 MiB): the owner's downloads of later chunks run while earlier ones are broadcast, and
the receiver uploads each chunk as soon as it has arrived, so the copies over the bus
overlap MPI instead of adding to it (a block costs its MPI time plus about one chunk's
copy at each end: 0.6 ms at 55 GB/s). Smaller chunks would shorten that, but MPICH moves
them more slowly (on the dev machine a 512 MiB broadcast ran at 2.6-3.1 GB/s in 2-8 MiB
pieces, 3.6-4.7 GB/s in 32-512 MiB ones). Copies run on a queue of their own (:func:`copy_queue`)
so that they also overlap the kernels of the previous SUMMA step, which run on the
operands' queue. Device buffers used across threads are made before any worker thread
starts (pyopencl's memory pool is not meant to be shared by threads), and every copy and
kernel is waited for before its buffers are reused.

Everything here is timed as communication by the caller; the sums of C's parts as compute.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..caches import cache_dict
from ..operands import is_device_array
from .agreement import Statement
from .staging import chunk_bytes

RESIDENT_BACKENDS = ("opencl",)  # the local backends that compute on device arrays


def is_resident(*arrays: Any) -> bool:
    return any(is_device_array(x) for x in arrays)


# --- the opening check ----------------------------------------------------------------

def check_blocks(statement: Statement, a: Any, b: Any, setup: Any) -> Any:
    """State whether this rank's blocks are on a device and what is wrong with them; the
    rank's setup then runs on the blocks' device (an explicit ``local`` device must be
    that one). Returns the setup to use."""
    resident = is_resident(a, b)
    statement.extra["resident"] = resident
    if not resident:
        return setup
    if not (is_device_array(a) and is_device_array(b)):
        statement.fail("type", "a_mine and b_mine must both be device arrays "
                               "(pyopencl.array.Array) or both numpy arrays; got "
                               f"{type(a).__name__} and {type(b).__name__}")
        return setup
    for label, x in (("a_mine", a), ("b_mine", b)):
        if not x.flags.c_contiguous or x.offset:
            statement.fail("type", f"{label} must be a C-contiguous device array with "
                                   f"offset 0 (upload the block itself, not a view of a "
                                   f"larger array)")
            return setup
    if a.context != b.context:
        statement.fail("type", "a_mine and b_mine are device arrays of different contexts")
        return setup
    if setup is None:  # its problem is in the statement already
        return setup
    from ..backends import get_backend

    try:  # a backend that cannot compute on device arrays says so
        where = get_backend(setup.options.backend).resident_device(a, b)
    except TypeError as exc:
        statement.fail("setup", f"device arrays need a backend that computes on them "
                                f"({', '.join(RESIDENT_BACKENDS)}): {exc}")
        return setup
    if setup.options.device is not None and setup.device != where:
        statement.fail("setup", f"this rank's local device is {setup.label}, but its "
                                f"blocks live on {where.filter_string}")
        return setup
    return replace(setup, device=where, label=where.filter_string)


def check_agreed(statements: list[Statement]) -> bool:
    """True when every rank's blocks are on its device; raises when ranks differ."""
    from .errors import KINDS

    kinds = {bool(s.extra.get("resident")) for s in statements}
    if len(kinds) > 1:
        said = ", ".join(f"rank {r}: {'device' if s.extra.get('resident') else 'host'}"
                         for r, s in enumerate(statements))
        raise KINDS["type"](f"ranks disagree on where the blocks are ({said}); every rank "
                            f"passes device arrays or every rank passes numpy arrays")
    return kinds == {True}


# --- a rank's device side -------------------------------------------------------------

_copy_queues: dict = cache_dict("portgemm.distributed.resident._copy_queues")
_pinned: dict = cache_dict("portgemm.distributed.resident._pinned")  # (queue, role) -> memory


def copy_queue(queue: Any) -> Any:
    """A second in-order queue on the context of portgemm's ``queue``, for the copies
    between device and host, so that they run beside the kernels on ``queue``."""
    import pyopencl as cl

    found = _copy_queues.get(queue)
    if found is None:
        found = _copy_queues[queue] = cl.CommandQueue(queue.context, queue.device.handle)
    return found


class Side:
    """One rank's device for a call: the operands' queue (kernels, sums) and its copy
    queue, device buffers from the queue's pool, and pinned host buffers kept across
    calls (one per role, grown to the largest request)."""

    def __init__(self, array: Any, *others: Any):
        from ..runtime.queue import Queue

        self.queue = Queue.for_array(array)
        self.copies = copy_queue(self.queue)
        self.dtype = np.dtype(array.dtype)
        self._follow(array, *others)

    def _follow(self, *arrays: Any) -> None:
        """Start the copy queue after every command queued so far on the arrays' queues
        and after their pending events. Commands of one queue are not ordered against
        another's: a blocking write (``to_device``) may return before the device has
        the data (Intel's CPU runtime did), and not every write leaves an event in
        ``array.events``, so a marker on each queue, once per call (later work on the
        operands' queue inside the call is waited for on the host before a copy touches
        its buffers)."""
        import pyopencl as cl

        from ..runtime.queue import Queue

        waits = [event for x in arrays for event in x.events]
        for cl_queue in {x.queue.int_ptr: x.queue for x in arrays}.values():
            with Queue.for_cl_queue(cl_queue).lock:
                waits.append(cl.enqueue_marker(cl_queue))
        cl.enqueue_barrier(self.copies, wait_for=waits)

    def empty(self, shape: tuple[int, ...]) -> Any:
        """A device array of ``shape`` from the pool (call before worker threads start)."""
        import pyopencl.array as cl_array

        return cl_array.empty(self.queue.cl_queue, shape, self.dtype,
                              allocator=self.queue.allocator)

    def view(self, slot: Any, shape: tuple[int, int]) -> Any:
        """A C-contiguous (rows, cols) array at the start of ``slot``'s buffer."""
        import pyopencl.array as cl_array

        if shape[0] * shape[1] == 0:
            return cl_array.empty(self.queue.cl_queue, shape, self.dtype)
        return cl_array.Array(self.queue.cl_queue, shape, self.dtype, data=slot.base_data)

    def pinned(self, role: str, shape: tuple[int, int]) -> np.ndarray:
        """A C-contiguous (rows, cols) array in pinned host memory, ``role``'s own."""
        from ..memory import empty_pinned

        nbytes = max(1, shape[0] * shape[1] * self.dtype.itemsize)
        key = (self.queue, role)
        memory = _pinned.get(key)
        if memory is None or memory.nbytes < nbytes:
            _pinned.pop(key, None)  # the old one is unpinned when it is freed
            memory = _pinned[key] = empty_pinned((nbytes,), np.uint8, self.queue.device)
        return memory[:shape[0] * shape[1] * self.dtype.itemsize].view(self.dtype).reshape(shape)

    def rows_per_chunk(self, cols: int) -> int:
        return max(1, chunk_bytes() // max(1, cols * self.dtype.itemsize))

    # --- copies on the copy queue (non-blocking; each returns its event) --------------
    def download(self, host: np.ndarray, src: Any, at: tuple[int, int]) -> Any:
        """host[:] = src[at[0]:, at[1]:] (host: a C-contiguous rows x cols array)."""
        import pyopencl as cl

        rows, cols = host.shape
        w, pitch = self.dtype.itemsize, src.shape[1] * self.dtype.itemsize
        if cols == src.shape[1]:  # whole rows: one linear copy
            return cl.enqueue_copy(self.copies, host, src.base_data, src_offset=at[0] * pitch,
                                   is_blocking=False)
        return cl.enqueue_copy(self.copies, host, src.base_data,
                               buffer_origin=(at[1] * w, at[0]), host_origin=(0, 0),
                               region=(cols * w, rows), buffer_pitches=(pitch,),
                               host_pitches=(cols * w,), is_blocking=False)

    def upload(self, dst: Any, at: tuple[int, int], host: np.ndarray) -> Any:
        """dst[at[0]:, at[1]:] = host (host: a C-contiguous rows x cols array)."""
        import pyopencl as cl

        rows, cols = host.shape
        w, pitch = self.dtype.itemsize, dst.shape[1] * self.dtype.itemsize
        if cols == dst.shape[1]:
            return cl.enqueue_copy(self.copies, dst.base_data, host, dst_offset=at[0] * pitch,
                                   is_blocking=False)
        return cl.enqueue_copy(self.copies, dst.base_data, host,
                               buffer_origin=(at[1] * w, at[0]), host_origin=(0, 0),
                               region=(cols * w, rows), buffer_pitches=(pitch,),
                               host_pitches=(cols * w,), is_blocking=False)

    def copy(self, dst: Any, dst_at: tuple[int, int], src: Any, src_at: tuple[int, int],
             shape: tuple[int, int]) -> Any:
        """dst[dst_at + shape] = src[src_at + shape], device to device; None if empty."""
        import pyopencl as cl

        rows, cols = shape
        if rows * cols == 0:
            return None
        w = self.dtype.itemsize
        src_pitch, dst_pitch = src.shape[1] * w, dst.shape[1] * w
        if cols == src.shape[1] == dst.shape[1]:
            return cl.enqueue_copy(self.copies, dst.base_data, src.base_data,
                                   byte_count=rows * cols * w, src_offset=src_at[0] * src_pitch,
                                   dst_offset=dst_at[0] * dst_pitch)
        return cl.enqueue_copy(self.copies, dst.base_data, src.base_data,
                               src_origin=(src_at[1] * w, src_at[0]),
                               dst_origin=(dst_at[1] * w, dst_at[0]), region=(cols * w, rows),
                               src_pitches=(src_pitch,), dst_pitches=(dst_pitch,))

    def allreduce(self, transport: Any, c: Any) -> Any:
        """C summed over the ranks of ``transport``, in place on every rank's device:
        download to pinned memory, one MPI allreduce there, upload."""
        if transport.size == 1 or c.size == 0:
            return c
        host = self.pinned("c", c.shape)
        self.download(host, c, (0, 0)).wait()
        transport.allreduce(host)
        self.upload(c, (0, 0), host).wait()
        return c


def upload_block(block: np.ndarray, device: Any) -> Any:
    """A C-contiguous device copy of a host block on portgemm's queue of ``device`` (what
    ``--resident`` does once, before the timed calls)."""
    from ..memory import to_device

    return to_device(np.ascontiguousarray(block), device)
