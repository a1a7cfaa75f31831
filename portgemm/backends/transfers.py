"""How operands reach an OpenCL device and C comes back, per device and per operand.

Operands that are already device arrays (``pyopencl.array.Array``) are used in place, and
C then stays on the device too (a new array, or ``out``). Numpy operands go the cheapest
way the device allows (:func:`policy_for`):

* ``svm``: the device reads and writes host memory through fine-grained system SVM
  (Intel's CPU runtime): numpy arrays are kernel arguments as they are -- no buffer, no
  copy, whatever their alignment; C is written straight into the result array.
* ``host_ptr``: the device shares host memory (``host_unified_memory``: CPU runtimes,
  integrated GPUs): buffers are made over the arrays with ``USE_HOST_PTR`` (PoCL then
  copies nothing) and C is mapped back, which on such a device moves no data.
* ``staged``: a discrete device: operands go through pinned (page-locked) staging
  buffers, a chunk at a time: host threads copy chunk i+1 into one buffer while the DMA
  engine moves chunk i from the other, and C comes back the same way. Copies from
  pageable memory (what ``copy`` does) run at a fraction of the bus's speed, but for
  arrays under STAGED_FROM_BYTES they take less time than the staging's threads and
  waits, so a call whose arrays are all smaller copies them plainly. A numpy array made
  by :func:`portgemm.empty_pinned` is pinned already and goes in one DMA.
* ``copy``: plain copies from and to the numpy arrays.

``PORTGEMM_TRANSFER=copy|staged|host_ptr|svm`` forces one (the tests run every policy on
CPU devices this way); a policy the device cannot do falls back to ``copy``.
"""

from __future__ import annotations

import math
import os
import weakref
from typing import Any

import numpy as np

from ..caches import memoize
from ..errors import ParameterError
from ..operands import is_device_array, runs_of
from ..runtime.device import Device
from ..runtime.queue import Event, Queue
from .stack_layout import matrices, packed

TRANSFER_ENV_VAR = "PORTGEMM_TRANSFER"
POLICIES = ("svm", "host_ptr", "staged", "copy")
CHUNK_BYTES = 8 * 2**20     # one staging buffer; two per direction and queue
# the policy "staged" stages a call's arrays where the largest of them has at least this
# many bytes; a call of smaller ones copies them plainly, which on the H200 took less
# time: matmul 1.13-1.28x as fast at operands of 1-8 MiB (512^3 to 1448^3); from 16 MiB
# staging is 1.14-1.63x as fast as plain copies; staging only the largest array of a
# call took 0.90x at 2048 x 512 x 2048 (bench/results/2026-11-27-h200-mid-transfers)
STAGED_FROM_BYTES = 12 * 2**20
COPY_THREADS = 8            # host threads filling a staging buffer, at most


def policy_for(device: Device) -> str:
    forced = os.environ.get(TRANSFER_ENV_VAR, "").strip().lower()
    if forced and forced not in POLICIES:  # a typo forced "copy", the slowest, unsaid
        raise ParameterError(f"{TRANSFER_ENV_VAR}={forced!r}: use one of "
                             f"{', '.join(POLICIES)} (or leave it unset)")
    return _policy(device, forced)


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
    if shares_host_memory(handle):
        found.append("host_ptr")
    return tuple(found) + ("staged", "copy")


def shares_host_memory(handle: Any) -> bool:
    """Whether a ``pyopencl.Device`` works in host memory (CPU runtimes, integrated
    GPUs); False where the driver does not say (OpenCL 3.0 made the query optional)."""
    import pyopencl as cl

    try:
        return bool(handle.host_unified_memory)
    except (cl.Error, AttributeError):
        return False


# --- pinned host memory --------------------------------------------------------------

_pinned: dict[int, tuple[weakref.ref, int]] = {}  # start address -> (the array, bytes)


def empty_pinned(shape, dtype=np.float32, device: Any = None) -> np.ndarray:
    """A numpy array in pinned (page-locked) host memory of ``device``'s context: GEMMs
    with it as an operand or as ``out`` move it by DMA at the bus's full speed. The
    memory stays pinned as long as the array (or a view of it) lives."""
    import pyopencl as cl

    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)  # as numpy
    dtype = np.dtype(dtype)  # None is float64, as numpy's empty has it
    if any(int(n) < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    queue = Queue.for_device(device)
    nbytes = max(1, math.prod(int(n) for n in shape) * dtype.itemsize)  # (int64 wraps)
    if nbytes > queue.device.max_mem_alloc_size:
        raise ParameterError(f"a pinned array of {nbytes:,} bytes is past max_mem_alloc_size "
                             f"{queue.device.max_mem_alloc_size:,} of "
                             f"{queue.device.description}")
    buffer = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR,
                       size=nbytes)
    mapped = queue.map(buffer, cl.map_flags.READ | cl.map_flags.WRITE, tuple(shape), dtype)
    _pinned[mapped.ctypes.data] = (weakref.ref(mapped), nbytes)
    return mapped


def is_pinned(array: np.ndarray) -> bool:
    """True when ``array`` lies in memory made by :func:`empty_pinned`."""
    address = array.ctypes.data
    for start, (alive, nbytes) in list(_pinned.items()):
        if alive() is None:
            del _pinned[start]
        elif start <= address < start + nbytes:
            return True
    return False


class Staging:
    """A queue's pinned staging buffers, two for uploads and two for downloads: buffers
    made with ALLOC_HOST_PTR and mapped for good; copies go from and to the mapped
    pointers, which the driver knows to be page-locked (DMA at the bus's speed). One
    transfer uses them at a time (it holds the queue's lock: threads share them)."""

    def __init__(self, queue: Queue):
        import pyopencl as cl

        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR
        self.buffers, self.host = [], []
        self.pending = [None] * 4  # the last copy from or into each buffer, across calls
        for _ in range(4):
            buffer = cl.Buffer(queue.context, flags, size=CHUNK_BYTES)
            view = queue.map(buffer, cl.map_flags.READ | cl.map_flags.WRITE, (CHUNK_BYTES,),
                             np.uint8)
            self.buffers.append(buffer)
            self.host.append(view)


@memoize(maxsize=16)
def staging_for(queue: Queue) -> Staging:
    return Staging(queue)


def parallel_copy(destination: np.ndarray, source: np.ndarray) -> None:
    """``destination[:] = source`` (flat uint8 views) on several host threads: one thread
    fills a pinned buffer at a fraction of the memory bandwidth; numpy's copy releases the
    GIL, so threads add up."""
    from ..parallel import parallel_for

    size = source.nbytes
    threads = max(1, min(COPY_THREADS, size // (1 << 20)))
    if threads == 1:
        np.copyto(destination, source)
        return
    step = -(-size // threads)

    def piece(start, stop):
        for t in range(start, stop):
            np.copyto(destination[t * step:(t + 1) * step], source[t * step:(t + 1) * step])

    parallel_for(threads, piece, schedule="static", num_threads=threads)


def _flat_bytes(array: np.ndarray) -> np.ndarray:
    return np.ravel(array, order="K").view(np.uint8)


def staged_upload(queue: Queue, host: np.ndarray, device_buffer) -> None:
    """Copy ``host`` (contiguous) into ``device_buffer`` through the pinned buffers."""
    source, staging = _flat_bytes(host), staging_for(queue)
    with queue.lock:
        for index, start in enumerate(range(0, source.nbytes, CHUNK_BYTES)):
            slot = index % 2
            if staging.pending[slot] is not None:
                staging.pending[slot].wait()  # its last chunk is on the device: refill
            size = min(CHUNK_BYTES, source.nbytes - start)
            parallel_copy(staging.host[slot][:size], source[start:start + size])
            # from the mapped pointer, never the buffer object: while mapped, a driver
            # with a device-side copy of the buffer (NVIDIA's) does not see what was
            # written there
            staging.pending[slot] = queue.copy(device_buffer, staging.host[slot][:size],
                                               dst_offset=start, is_blocking=False)


def staged_download(queue: Queue, device_buffer, host: np.ndarray) -> None:
    """Copy ``device_buffer`` into ``host`` (C-contiguous) through the pinned buffers:
    the DMA of chunk i+1 runs while host threads copy chunk i out."""
    target, staging = _flat_bytes(host), staging_for(queue)
    starts = list(range(0, target.nbytes, CHUNK_BYTES))

    def fetch(index):
        slot, start = 2 + index % 2, starts[index]
        size = min(CHUNK_BYTES, target.nbytes - start)
        return queue.copy(staging.host[slot][:size], device_buffer, src_offset=start,
                          is_blocking=False)

    with queue.lock:
        pending = fetch(0) if starts else None
        for index, start in enumerate(starts):
            following = fetch(index + 1) if index + 1 < len(starts) else None
            pending.wait()
            size = min(CHUNK_BYTES, target.nbytes - start)
            parallel_copy(target[start:start + size], staging.host[2 + index % 2][:size])
            pending = following


def respace(queue: Queue, source, target, count: int, values: int, itemsize: int, *,
            source_pitch: int, target_pitch: int) -> Event:
    """Copy ``count`` runs of ``values`` values, ``source_pitch`` values apart in the
    device buffer ``source``, to ``target_pitch`` apart in ``target``: one rectangular
    copy, a run a row (the queue is in order: what follows waits for it)."""
    return Event(queue.copy(
        target, source, src_origin=(0, 0, 0), dst_origin=(0, 0, 0),
        region=(values * itemsize, count, 1),
        src_pitches=(source_pitch * itemsize, source_pitch * itemsize * count),
        dst_pitches=(target_pitch * itemsize, target_pitch * itemsize * count)))


# --- one call's operands ---------------------------------------------------------------

class Transfer:
    """One call's operands on the device: kernel arguments for A, B, C and workspaces,
    and :meth:`finish`, which makes C's values visible where the caller gets them."""

    def __init__(self, queue: Queue, policy: str, largest: int = 0):
        """``largest``: the bytes of the call's largest numpy array (A, B or C), which
        decides whether the policy "staged" stages them (STAGED_FROM_BYTES)."""
        self.queue, self.policy = queue, policy
        self.staging = policy == "staged" and largest >= STAGED_FROM_BYTES
        self._c_host: np.ndarray | None = None
        self._c_buffer = None
        self._c_stack: tuple | None = None   # (C's stack, pitch): laid out on the host
        self._c_spaced: tuple | None = None  # spaced out on the device: respace's arguments
        self._host_inputs = False  # whether a kernel may read host memory of A or B

    @property
    def in_place(self) -> bool:
        """Whether numpy operands are read where they lie (no copy into device memory)."""
        return self.policy in ("svm", "host_ptr")

    def input(self, data) -> Any:
        """A read-only argument holding ``data`` (C- or F-contiguous, as it lies)."""
        import pyopencl as cl

        if is_device_array(data):
            if data.context != self.queue.context:
                raise ParameterError("device arrays of one call must share a context")
            if not (data.flags.c_contiguous or data.flags.f_contiguous):
                return self._packed(data)
            if data.offset:  # a view (rows 10 on, say): a kernel's argument starts at
                # its buffer's start, so the view's bytes go to one of the queue's own
                buffer = self.queue.allocator(max(1, data.nbytes))
                self.queue.copy(buffer, data.base_data, byte_count=data.nbytes,
                                src_offset=data.offset)
                return buffer
            return data.base_data
        self._host_inputs = True
        flat = np.ravel(data, order="K")
        if self.policy == "svm":
            # pyopencl wraps only writable memory as SVM, so a read-only array (a
            # broadcast view, a read-only memmap) is copied first: on Intel's CPU runtime
            # 0.96 ms against 2.8 for a host-pointer buffer over it at 8192 x 128 x 128
            return cl.SVM(flat if flat.flags.writeable else flat.copy())
        if self.policy == "host_ptr":
            return cl.Buffer(self.queue.context,
                             cl.mem_flags.READ_ONLY | cl.mem_flags.USE_HOST_PTR, hostbuf=flat)
        buffer = self.queue.allocator(max(1, flat.nbytes))
        if self._stages(data):
            staged_upload(self.queue, flat, buffer)
        else:
            self.queue.copy(buffer, flat)
        return buffer

    def _packed(self, view) -> Any:
        """A device view of runs apart (``b_dev[:, 3:9]``: its rows, or its columns)
        packed run after run into a buffer of the queue's, one rectangular copy: the
        layout ``as_operand`` gave it."""
        count, values, pitch = runs_of(view)
        width = values * view.dtype.itemsize
        buffer = self.queue.allocator(max(1, count * width))
        self.queue.copy(buffer, view.base_data, src_origin=(view.offset % pitch,
                                                            view.offset // pitch),
                        dst_origin=(0, 0), region=(width, count), src_pitches=(pitch,),
                        dst_pitches=(width,))
        return buffer

    def stack_input(self, stack, pitch: int) -> Any:
        """A read-only argument holding a stack (count, rows, cols: numpy, or a
        C-contiguous device array) laid out as :func:`~.stack_layout.packed` lays it out.
        A numpy stack that the device reads in place is laid out on the host; else the
        stack goes as it lies and the device spaces it out, one rectangular copy (the
        host's copy of 64 x 1000 x 50 values took 0.75 ms of a 2.8 ms call on an H100's
        host)."""
        count, rows, cols = stack.shape
        on_device = is_device_array(stack)
        lying = stack if on_device else np.ascontiguousarray(stack)
        if count == 1 or pitch == rows * cols:  # spaced already, or one matrix for all
            return self.input(lying)
        if self.in_place and not on_device:
            return self.input(packed(stack, pitch))
        spaced = self.queue.allocator(count * pitch * stack.dtype.itemsize)
        respace(self.queue, self.input(lying), spaced, count, rows * cols,
                stack.dtype.itemsize, source_pitch=rows * cols, target_pitch=pitch)
        return spaced

    def stack_output(self, c, pitch: int, fill: float | None) -> tuple[Any, list | None]:
        """As :meth:`output`, for C's stack ``c`` (count, rows, cols, C-contiguous: numpy
        or a device array) that the kernels write ``pitch`` values a matrix apart, as
        :meth:`stack_input` lays out; :meth:`finish` puts the values into ``c``."""
        count, rows, cols = c.shape
        flat = c if is_device_array(c) else c.reshape(-1)  # (a device array's buffer)
        if pitch == rows * cols:
            return self.output(flat, fill)
        if self.in_place and not is_device_array(c):
            self._c_stack = (c, pitch)
            return self.output(np.empty(count * pitch, c.dtype), fill)
        target, _ = self.output(flat, None)  # the contiguous C, spaced into at finish
        nbytes = count * pitch * c.dtype.itemsize
        spaced = self.queue.allocator(nbytes)
        self._c_spaced = (spaced, target, count, rows * cols, pitch, c.dtype.itemsize)
        if fill is None:
            return spaced, None
        return spaced, [self.queue.fill(spaced, c.dtype.type(fill), nbytes).cl_event]

    def output(self, c, fill: float | None) -> tuple[Any, list | None]:
        """The argument C is written through (``c``: the numpy array or device array the
        caller gets), and the events a kernel must wait for (a fill of C first, when
        ``fill`` is given)."""
        import pyopencl as cl

        if is_device_array(c):
            if c.context != self.queue.context:
                raise ParameterError("out must be on the operands' context")
            if c.offset:
                raise ParameterError("out cannot have an offset into its buffer")
            argument = c.base_data
            if fill is None:
                return argument, None
            return argument, [self.queue.fill(argument, c.dtype.type(fill), c.nbytes).cl_event]
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
            self._c_buffer = self.queue.allocator(max(1, c.nbytes))
        if fill is None:
            return self._c_buffer, None
        event = self.queue.fill(self._c_buffer, c.dtype.type(fill), c.nbytes)
        return self._c_buffer, [event.cl_event]

    def _stages(self, array: np.ndarray) -> bool:
        """Whether ``array`` goes through the staging buffers (a call that stages, an
        array not pinned already)."""
        return self.staging and not is_pinned(array)

    def workspace(self, nbytes: int) -> Any:
        """Scratch memory for partial results (never seen by the host)."""
        return self.queue.allocator(max(1, nbytes))

    @property
    def device_only(self) -> bool:
        """Whether A, B and C are all device arrays: nothing of the call lies in host
        memory, which a kernel might read (SVM, host pointers) after the call returns."""
        return self._c_host is None and not self._host_inputs

    def finish(self, last: Event, *, wait: bool = True) -> Event:
        """Make C's values visible where the caller gets them: in the host array (waited
        for), or in the device array, by the last command on the queue, which is
        returned (waited for unless ``wait`` is False and the call is
        :attr:`device_only`; the queue is in order, so what the caller enqueues next
        sees C)."""
        import pyopencl as cl

        if self._c_spaced is not None:
            spaced, target, count, values, pitch, itemsize = self._c_spaced
            last = respace(self.queue, spaced, target, count, values, itemsize,
                           source_pitch=pitch, target_pitch=values)
        if self._c_host is None:
            return last.wait() if wait or not self.device_only else last
        if self.policy == "svm":
            last.wait()
        elif self.policy == "host_ptr":
            mapped = self.queue.map(self._c_buffer, cl.map_flags.READ, self._c_host.shape,
                                    self._c_host.dtype)
            if mapped.ctypes.data != self._c_host.ctypes.data:  # a driver that copied
                self._c_host[...] = mapped
            with self.queue.lock:
                mapped.base.release()
        elif self._stages(self._c_host):
            last.wait()
            staged_download(self.queue, self._c_buffer, self._c_host)
        else:
            self.queue.copy(self._c_host, self._c_buffer)
        if self._c_stack is not None:
            c, pitch = self._c_stack
            c[...] = matrices(self._c_host, *c.shape, pitch)
        return last
