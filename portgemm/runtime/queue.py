"""Queue: one device's context and profiling command queue, a program cache, and submit.

Usable on its own to run any OpenCL kernel over an :class:`NDRange`::

    import numpy as np, portgemm
    from portgemm.runtime import Queue, NDRange

    q = Queue("cpu")
    square = q.kernel('''__kernel void square(__global float *x) {
                             size_t i = get_global_id(0); x[i] *= x[i]; }''', "square")
    x = q.to_device(np.arange(8, dtype=np.float32))
    event = q.submit(square, NDRange(8, 4), x)
    print(q.to_host(x, np.empty(8, np.float32)), event.kernel_ms)
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
import warnings
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..caches import cache_dict, register
from ..errors import BuildError, ForkedProcessError, ParameterError
from . import invoker_cache, pocl_target, program_cache
from . import ptx as ptx_route
from .device import Device
from .ndrange import NDRange
from .selectors import DeviceSpec, select_device, selected_again

# Built programs a queue keeps in memory, the least recently used dropped past it (with
# their kernels): a tall-skinny C's tile is compiled in, so every new M x N of C is a new
# program, and on Intel's CPU runtime each one held ~4.5 MB of the process (2-core Zen 5:
# 55 programs after 600 calls of random shapes under 120, and growing). A dropped program
# comes back from the disk cache (2.8 ms there).
PROGRAMS_KEPT = 64
# Queues of other code (of pyopencl arrays made on them) a process keeps wrapped, each with
# its own programs, the least recently used dropped past it: a caller that makes a queue
# a task grew by ~0.7 MB a queue (Zen 5, a 64^3 product each, 60 queues) before
WRAPPED_KEPT = 16
# One lock per user's queue (by its address), for good: an evicted wrapper's successor
# (past WRAPPED_KEPT) had a lock of its own, which a thread holding the old one did not
# keep out. Not a cache: forgetting a lock while a thread holds it lets two threads in.
_user_queue_locks: dict[int, threading.RLock] = {}
# Platforms whose queues still work in a process forked after they were made: Intel's CPU
# runtime's did (four forked workers, right answers); NVIDIA's hung, and so did PoCL 5's,
# on a context made afresh in the child as well (bench/results/2026-11-27-h100-robustness)
FORK_SAFE_PLATFORMS = ("Intel(R) OpenCL",)


@dataclass(frozen=True)
class Event:
    """A finished (or pending) command; times are the device's profiling clock in ns."""

    cl_event: object

    def wait(self) -> "Event":
        self.cl_event.wait()
        return self

    @property
    def submit_ns(self) -> int:
        return self._profile("submit")

    @property
    def start_ns(self) -> int:
        return self._profile("start")

    @property
    def end_ns(self) -> int:
        return self._profile("end")

    @property
    def kernel_ms(self) -> float:
        """Time the device spent running the command (end - start), in ms."""
        return (self.end_ns - self.start_ns) * 1e-6

    def _profile(self, field: str) -> int:
        import pyopencl as cl

        self.cl_event.wait()
        try:
            return getattr(self.cl_event.profile, field)
        except cl.RuntimeError as exc:  # PROFILING_INFO_NOT_AVAILABLE
            raise RuntimeError(f"no times for this event: its queue was made without "
                               f"profiling (pyopencl.command_queue_properties."
                               f"PROFILING_ENABLE; portgemm's own queues have it): "
                               f"{exc}") from exc


def _free_pooled() -> None:
    """Give back the memory every queue's pool keeps for arrays deleted (a pool holds it
    for the next array of the queue; arrays still alive keep their queue's pool alive
    after clear_caches() forgets the queue). Registered before the queues' own caches,
    so it runs before they are forgotten."""
    for queue in list(Queue._every):
        if queue._allocator is not None:
            queue._allocator.free_held()


register("portgemm.runtime.queue.pooled_memory", _free_pooled)


class Queue:
    """A context and in-order profiling queue on one device, with a build cache.

    Programs are built once per (device, source, options) and each kernel object is
    retrieved once, the last PROGRAMS_KEPT programs used kept in memory;
    ``Queue.for_device`` shares one queue per device. A program built before (in an
    earlier process, or dropped from memory) is loaded from the disk cache
    (:mod:`portgemm.runtime.program_cache`) instead of being compiled again. ``lock``
    gives the queue to one thread at a time: portgemm holds it through a call and each
    copy; threads that queue commands of their own here hold it around them.
    """

    _shared: dict = cache_dict("portgemm.runtime.queue.Queue._shared")
    _wrapped: dict = cache_dict("portgemm.runtime.queue.Queue._wrapped")
    _shared_lock = threading.Lock()
    _every: weakref.WeakSet = weakref.WeakSet()  # to mark them in a forked child

    def __init__(self, device: DeviceSpec = None, *, cl_queue=None):
        invoker_cache.settle()  # before pyopencl makes its first kernel
        import pyopencl as cl

        lock = None

        if cl_queue is None:
            self.device: Device = select_device(device)
            if self.device.platform in _started_before_fork:
                self.forked_from = os.getppid()
                self.refuse_after_fork()
            if not isinstance(self.device.handle, cl.Device):
                # a Device written by hand (no handle: pyopencl's std::bad_cast below), as
                # an unpickled one is: this process's device of its filter string
                self.device = selected_again(self.device.filter_string, self.device.name)
            self.context = cl.Context([self.device.handle])
            cl_queue = cl.CommandQueue(
                self.context, properties=cl.command_queue_properties.PROFILING_ENABLE)
        else:  # someone else's queue (of pyopencl arrays): its context, its device
            self.device = device if isinstance(device, Device) else _device_of(cl_queue.device)
            self.context = cl_queue.context
            lock = _user_queue_locks.setdefault(cl_queue.int_ptr, threading.RLock())
            cl_queue = _in_order(cl_queue)  # an out-of-order one read C before it was made
        self.cl_queue = cl_queue
        self.profiling = bool(cl_queue.properties & cl.command_queue_properties.PROFILING_ENABLE)
        self._programs: OrderedDict = OrderedDict()  # least recently used first
        self._kernels: dict = {}  # (source, options, name) -> (kernel, its program's key)
        self._scalar_types: dict = {}  # kernel -> the scalar argument types it was given
        # One thread's commands at a time (the backend holds it through a whole call): a
        # kernel's arguments are shared state until it is enqueued, and NVIDIA's driver
        # crashed the process (a segfault) when threads copied operands to and from one
        # queue at once, now and then still with each copy alone
        # (bench/results/2026-11-27-gpu-threads)
        # (a user's queue keeps one lock for good, whichever wrapper of it is alive)
        self.lock = threading.RLock() if lock is None else lock
        self._allocator = None
        self._counters = None  # int32 zeros for ticket counters: see zeroed_counters
        self.builds = 0     # programs made by this queue (compiled or loaded from disk)
        self.compiled = 0   # of those, compiled from source
        self.forked_from: int | None = None  # the process that made it, in a forked child
        Queue._every.add(self)

    @classmethod
    def for_device(cls, device: DeviceSpec = None) -> "Queue":
        """The process-wide queue of a device (created on first use)."""
        chosen = device if isinstance(device, Device) else select_device(device)
        queue = cls._shared.get(chosen)  # the warm path: no lock, no selection
        if queue is not None:
            if queue.forked_from is not None:
                queue.refuse_after_fork()
            return queue
        with cls._shared_lock:
            queue = cls._shared.get(chosen)
            if queue is None:
                queue = cls._shared[chosen] = cls(chosen)
        return queue

    @classmethod
    def for_array(cls, array) -> "Queue":
        """The Queue of a ``pyopencl.array.Array``'s queue; ValueError for an array that
        has none (``x.with_queue(None)``), as pyopencl's own operations say."""
        if array.queue is None:
            raise ValueError("this device array has no queue: give it one with "
                             "array.with_queue(queue)")
        return cls.for_cl_queue(array.queue)

    @classmethod
    def for_cl_queue(cls, cl_queue) -> "Queue":
        """portgemm's Queue over an existing ``pyopencl.CommandQueue`` (the one a
        ``pyopencl.array.Array`` lives on): its programs are built in that context. The
        device's own shared queue when it is that one. TypeError for anything else (None
        made a private queue of the default device, kept under the key None)."""
        import pyopencl as cl

        if not isinstance(cl_queue, cl.CommandQueue):
            raise TypeError(f"for_cl_queue takes a pyopencl.CommandQueue (an array's "
                            f".queue), got {type(cl_queue).__name__}; Queue.for_device "
                            f"takes a device")
        for queue in list(cls._shared.values()):
            if queue.cl_queue == cl_queue:
                break
        else:
            with cls._shared_lock:
                queue = cls._wrapped.pop(cl_queue, None)  # put back last: used last
                if queue is None:
                    queue = cls(cl_queue=cl_queue)
                cls._wrapped[cl_queue] = queue
                while len(cls._wrapped) > WRAPPED_KEPT:
                    del cls._wrapped[next(iter(cls._wrapped))]
        if queue.forked_from is not None:
            queue.refuse_after_fork()
        return queue

    def check_not_forked(self) -> None:
        """ForkedProcessError where this queue came from the parent of a forked child and
        its driver does not survive a fork: a user's own queue, used directly, hung."""
        if self.forked_from is not None:
            self.refuse_after_fork()

    def refuse_after_fork(self) -> None:
        """ForkedProcessError: this queue's driver does not work in a forked child, where
        any command would hang."""
        raise ForkedProcessError(
            f"portgemm used {self.device.description} in process {self.forked_from}, "
            f"which then forked this one; {self.device.platform} does not work in a "
            f"forked child (a call would hang). Start worker processes with "
            f"multiprocessing's 'spawn' or 'forkserver' method "
            f"(multiprocessing.get_context('spawn')), or use portgemm in the workers only")

    @property
    def allocator(self):
        """A pyopencl memory pool on this context: temporaries are reused across calls
        instead of allocated (cuMemAlloc and friends cost milliseconds for large ones)."""
        if self._allocator is None:
            from pyopencl.tools import ImmediateAllocator, MemoryPool

            self._allocator = MemoryPool(ImmediateAllocator(self.cl_queue))
        return self._allocator

    def empty_array(self, shape: tuple[int, ...], dtype):
        """A new C-contiguous ``pyopencl.array.Array`` on this queue, from its pool.
        pyopencl's public constructor checks the shape with numpy (9 us a call on a Zen
        5, 22 on an H100's host, of a 40-150 us warm matmul); the fast form that pyopencl
        uses for an array like another takes it as given (1 us). Where a pyopencl lacks
        that form, the public one."""
        import pyopencl.array as cl_array
        from pyopencl.compyte.array import c_contiguous_strides

        dtype = np.dtype(dtype)
        try:
            return cl_array.Array(None, tuple(shape), dtype, allocator=self.allocator,
                                  strides=c_contiguous_strides(dtype.itemsize, tuple(shape)),
                                  _fast=True,
                                  _size=math.prod(shape), _context=self.context,
                                  _queue=self.cl_queue)
        except TypeError:
            return cl_array.empty(self.cl_queue, shape, dtype, allocator=self.allocator)

    def zeroed_counters(self, count: int):
        """A buffer of at least ``count`` int32 counters, zero now. It is this queue's
        own and lent to every kernel that counts tickets: those leave it zero when they
        finish, and the queue runs one kernel after another, so it is filled once."""
        import pyopencl as cl

        with self.lock:
            if self._counters is None or self._counters.size < 4 * count:
                size = 4 * max(count, 1024)
                buffer = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size)
                cl.enqueue_fill_buffer(self.cl_queue, buffer, np.int32(0), 0, size)
                self._counters = buffer
            return self._counters

    @cached_property
    def device_options(self) -> tuple[str, ...]:
        """Build options every program on this device gets: ``PORTGEMM_PTX`` where the
        compiler is NVIDIA's, which takes inline PTX, and there ``PORTGEMM_SM``, the
        compute capability as 10 major + minor when the driver reports it (see
        kernels_cl/common.h). Read from the driver once a queue: every call builds with it."""
        if not self.device.takes_ptx:
            return ()
        capability = self.device.compute_capability
        if capability is None:
            return ("-DPORTGEMM_PTX=1",)
        return ("-DPORTGEMM_PTX=1", f"-DPORTGEMM_SM={10 * capability[0] + capability[1]}")

    def _program_key(self, source: str, options) -> tuple:
        """(source, options and the device's): a built program's key (a str caches its
        hash: cheap on every call)."""
        return source, _options(options) + self.device_options

    def program(self, source: str, options: tuple[str, ...] = ()):
        """The built program for this source and options (built on first request)."""
        key = self._program_key(source, options)
        self.check_not_forked()
        with self.lock:
            program = self._programs.get(key)
            if program is not None:
                self._programs.move_to_end(key)
                return program
            program = self._programs[key] = self._build(*key)
            self.builds += 1
            while len(self._programs) > PROGRAMS_KEPT:
                self._drop(next(iter(self._programs)))
        return program

    def _drop(self, key) -> None:
        """Forget a program and the kernels retrieved from it (they hold it)."""
        del self._programs[key]
        for retrieved in [k for k, (_, of) in self._kernels.items() if of == key]:
            kernel, _ = self._kernels.pop(retrieved)
            self._scalar_types.pop(kernel, None)

    def _build(self, source: str, options: tuple[str, ...]):
        """From the disk cache when it holds this build, else compiled (and then kept)."""
        import pyopencl as cl

        refused = pocl_target.refusal(self.device)
        if refused:  # before any build: its compiler could abort the process
            raise BuildError(f"OpenCL build refused on {self.device.description}",
                             f"error: {refused}", tuple(options))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cl.CompilerWarning)
            binary = program_cache.load(self.device, source, options)
            if binary is not None:
                try:
                    return cl.Program(self.context, [self.device.handle], [binary]).build(
                        options=list(options))
                except cl.Error:  # stale or damaged: compile again below, and replace it
                    program_cache.forget(self.device, source, options)
            try:
                # cache_dir=False: pyopencl's own binary cache stays out; ours is above
                program = cl.Program(self.context, source).build(options=list(options),
                                                                  cache_dir=False)
                if self.device.takes_ptx:
                    program = self._with_sm90a(program, options)
            except cl.RuntimeError as exc:
                raise BuildError(f"OpenCL build failed on {self.device.description}",
                                 _build_log(exc, self.device), tuple(options)) from exc
        self.compiled += 1
        binaries = program.get_info(cl.program_info.BINARIES)
        if binaries:
            program_cache.store(self.device, source, options, bytes(binaries[0]))
        return program

    def _with_sm90a(self, program, options: tuple[str, ...]):
        """The program rebuilt for sm_90a when its PTX holds marked sm_90a instructions
        (runtime/ptx.py), else the program."""
        import pyopencl as cl

        ptx = bytes(program.get_info(cl.program_info.BINARIES)[0]).decode(errors="replace")
        if not ptx_route.needs_sm90a(ptx):
            return program
        try:
            edited = ptx_route.for_sm90a(ptx)
        except ValueError as exc:
            raise BuildError(f"OpenCL build failed on {self.device.description}", str(exc),
                             tuple(options)) from None
        return cl.Program(self.context, [self.device.handle], [edited.encode()]).build(
            options=list(options))

    def kernel(self, source: str, name: str, options: tuple[str, ...] = ()):
        """The kernel ``name`` of a program, retrieved once and reused; ParameterError
        naming the program's kernels where it has no such one."""
        import pyopencl as cl

        key = (source, _options(options), name)
        with self.lock:
            found = self._kernels.get(key)
            if found is not None:
                kernel, program_key = found
                self._programs.move_to_end(program_key)
                return kernel
            program = self.program(source, options)
            try:
                kernel = cl.Kernel(program, name)
            except cl.LogicError as exc:  # INVALID_KERNEL_NAME
                names = program.get_info(cl.program_info.KERNEL_NAMES) or "none"
                raise ParameterError(f"the program has no kernel {name!r}; its kernels: "
                                     f"{names.replace(';', ', ')}") from exc
            self._kernels[key] = (kernel, self._program_key(source, options))
        return kernel

    def submit(self, kernel, ndrange: NDRange, *args, wait_for=None) -> Event:
        """Enqueue ``kernel(*args)`` over ``ndrange``; scalars must be numpy-typed."""
        import pyopencl as cl

        if not isinstance(ndrange, NDRange):
            raise TypeError(f"submit takes an NDRange (a global and a local range, "
                            f"NDRange(64, 16) say), got {ndrange!r}")
        if ndrange.work_group_size > self.device.max_work_group_size:
            raise ParameterError(f"a work-group of {ndrange.work_group_size} work-items "
                                 f"({ndrange.local_range.sizes}) is past "
                                 f"max_work_group_size {self.device.max_work_group_size} "
                                 f"of {self.device.description}")
        global_size, local_size = ndrange.opencl_sizes()
        scalar_types = tuple(a.dtype if isinstance(a, np.generic) else None for a in args)
        wait_for = _cl_events(wait_for)
        self.check_not_forked()
        with self.lock:
            if self._scalar_types.get(kernel) != scalar_types:
                # declared once, pyopencl packs the scalars itself: 9 arguments in ~2 us
                # instead of ~12 us for each numpy scalar it has to inspect
                if len(self._scalar_types) > 1024:  # kernels made and dropped by callers
                    self._scalar_types.clear()
                kernel.set_scalar_arg_dtypes(scalar_types)
                self._scalar_types[kernel] = scalar_types
            kernel.set_args(*args)
            return Event(cl.enqueue_nd_range_kernel(
                self.cl_queue, kernel, global_size, local_size, wait_for=wait_for))

    def copy(self, destination, source, **options):
        """``pyopencl.enqueue_copy`` on this queue (its arguments, blocking unless
        ``is_blocking=False``), one thread at a time (:attr:`lock`)."""
        import pyopencl as cl

        if "wait_for" in options:
            options["wait_for"] = _cl_events(options["wait_for"])
        self.check_not_forked()
        with self.lock:
            return cl.enqueue_copy(self.cl_queue, destination, source, **options)

    def map(self, buffer, flags, shape: tuple[int, ...], dtype) -> np.ndarray:
        """``buffer`` mapped into host memory as an array (blocking), one thread at a
        time, as :meth:`copy`."""
        import pyopencl as cl

        self.check_not_forked()
        with self.lock:
            mapped, _ = cl.enqueue_map_buffer(self.cl_queue, buffer, flags, 0, shape, dtype,
                                              is_blocking=True)
        return mapped

    def to_device(self, array: np.ndarray):
        """A new device buffer holding a copy of ``array``'s memory, in its own order,
        that kernels may read and write (the module's example squares it in place; a
        READ_ONLY buffer written by a kernel is undefined behaviour in OpenCL).

        A C- or F-contiguous array is copied as it lies in memory (so a kernel can read an
        F-order matrix column-major); any other view is made C-contiguous first.
        """
        import pyopencl as cl

        if not (array.flags.c_contiguous or array.flags.f_contiguous):
            array = np.ascontiguousarray(array)
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        return cl.Buffer(self.context, flags, hostbuf=np.ravel(array, order="K"))

    def empty(self, nbytes: int):
        """An uninitialised device buffer of ``nbytes`` (0 gives 1 byte)."""
        import pyopencl as cl

        if nbytes < 0:
            raise ValueError(f"a buffer of {nbytes} bytes")
        return cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size=max(int(nbytes), 1))

    def fill(self, buffer, value: np.generic, nbytes: int) -> Event:
        """Write ``value`` over the first ``nbytes`` of ``buffer``."""
        import pyopencl as cl

        self.check_not_forked()
        return Event(cl.enqueue_fill_buffer(self.cl_queue, buffer, value, 0, nbytes))

    def to_host(self, buffer, out: np.ndarray, wait_for=None) -> np.ndarray:
        """Copy ``buffer`` into the contiguous array ``out`` and wait for it."""
        self.copy(out, buffer, wait_for=wait_for, is_blocking=True)
        return out

    def finish(self) -> None:
        self.cl_queue.finish()

    @contextlib.contextmanager
    def drained_on_error(self):
        """On an exception, wait for the commands queued so far before it goes on: they
        may read or write host memory (a numpy C used in place, its poison fill) that is
        freed as the exception unwinds. Left pending, PoCL wrote into freed memory and
        the process died of heap corruption."""
        try:
            yield
        except BaseException:
            try:
                self.finish()
            except Exception:  # the queue may be what failed; the first error matters
                pass
            raise


def _options(options) -> tuple[str, ...]:
    """Build options as a tuple; one option may come as a string (not its characters)."""
    return (options,) if isinstance(options, str) else tuple(options)


def _cl_events(wait_for):
    """``wait_for`` as pyopencl takes it: None, or a list of its events, from portgemm's
    Events, pyopencl's, or one of either alone."""
    if wait_for is None:
        return None
    if hasattr(wait_for, "wait"):  # one event, of either kind
        wait_for = [wait_for]
    return [e.cl_event if isinstance(e, Event) else e for e in wait_for] or None


def _in_order(cl_queue):
    """``cl_queue``, or where it runs its commands out of order, an in-order queue of
    its own on the same context and device. portgemm's plans and copies follow one
    another on their queue (a packing before its product, the sum of tall-skinny
    slices after them): on an out-of-order queue they ran at once, and C was wrong. The
    operands' pending commands are waited for across queues
    (opencl.order_after_other_queues), and C's array carries its last event."""
    import pyopencl as cl

    properties = cl.command_queue_properties
    if not cl_queue.properties & properties.OUT_OF_ORDER_EXEC_MODE_ENABLE:
        return cl_queue
    return cl.CommandQueue(cl_queue.context, cl_queue.device,
                           properties=properties.PROFILING_ENABLE)


def _device_of(cl_device) -> Device:
    """portgemm's Device for a pyopencl device (described afresh if not enumerated)."""
    from .device import _describe, get_devices

    for device in get_devices():
        if device.handle == cl_device:
            return device
    return _describe(cl_device, cl_device.platform, "custom", 0)


def _build_log(exc, device: Device) -> str:
    """The compiler's log for this device, from the exception pyopencl raised."""
    logs = [log for dev, log in getattr(exc, "build_logs", ()) if dev == device.handle]
    return logs[0] if logs and logs[0].strip() else str(exc)


# platforms whose driver the parent of this forked process had started (listing devices
# starts every driver), where a new queue would hang as an inherited one does
_started_before_fork: set = set()


def _mark_in_forked_child() -> None:
    """Run in a forked child: the queues it inherited refuse work where their driver
    does not survive a fork (for_device and for_cl_queue check, and each command), and
    so do new queues on drivers the parent started (a PoCL queue made in the child hung
    where the parent had only listed the devices)."""
    from .device import listed_devices

    for queue in list(Queue._every):
        if queue.device.platform not in FORK_SAFE_PLATFORMS:
            queue.forked_from = os.getppid()
    _started_before_fork.update(
        device.platform for device in listed_devices()
        if device.platform not in FORK_SAFE_PLATFORMS)


# the locks _quiet_for_fork took, released on both sides of the fork
_held_over_fork: list = []


def _quiet_for_fork() -> None:
    """Before a fork: take the lock of every queue whose driver survives a fork, and let
    the commands of portgemm's own queues finish. A child forked while another thread was
    inside a call inherited that lock held by a thread it does not have, and the
    driver's commands in flight: it hung for good (Intel's CPU runtime, 6 of 6 children).
    A user's queue is not drained: its commands are the user's, and one gated by an
    event set after the fork held finish() for good."""
    own = {id(queue) for queue in list(Queue._shared.values())}
    for queue in list(Queue._every):
        if queue.device.platform in FORK_SAFE_PLATFORMS and queue.forked_from is None:
            queue.lock.acquire()
            _held_over_fork.append(queue.lock)
            if id(queue) in own:
                _drain(queue.cl_queue)
    # last: a call holding a queue's lock may ask for a queue (for_cl_queue)
    Queue._shared_lock.acquire()
    _held_over_fork.append(Queue._shared_lock)


# seconds a fork waits for portgemm's own queue's commands to finish: one gated by a user's
# event (set after the fork, say) would hold it for good, as finish() did
FORK_DRAIN_S = 5.0


def _drain(cl_queue) -> None:
    """Wait until the commands queued so far have run, or FORK_DRAIN_S has passed."""
    import pyopencl as cl

    marker = cl.enqueue_marker(cl_queue)
    cl_queue.flush()
    deadline = time.monotonic() + FORK_DRAIN_S
    while (marker.command_execution_status != cl.command_execution_status.COMPLETE
           and time.monotonic() < deadline):
        time.sleep(0.001)


def _release_after_fork() -> None:
    while _held_over_fork:
        _held_over_fork.pop().release()


def _after_fork_in_child() -> None:
    _release_after_fork()
    _mark_in_forked_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_quiet_for_fork, after_in_parent=_release_after_fork,
                        after_in_child=_after_fork_in_child)
