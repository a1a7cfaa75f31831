"""The OpenCL backend: the kernel families of ``kernels_cl/`` run through pyopencl."""

from __future__ import annotations

import threading
import time
from typing import Any, Mapping

import numpy as np

from ..auto import choose
from ..auto.default import named_defaults
from ..caches import memoize
from ..errors import ParameterError
from ..families import Variant, get_variant, variant_names
from ..families.base import UNPACKED, UNSPLIT, with_values
from ..families.launch import build_options, launch_plan  # noqa: F401 (callers import them here)
from ..operands import as_operand, check_device_memory, is_device_array, memory_problem
from ..result import GemmResult
from ..runtime.device import Device
from ..runtime.queue import Queue
from ..runtime.selectors import DeviceSpec, select_device, select_devices
from . import Resolved
from .stack_layout import pitch_for
from .transfers import Transfer, policy_for


# A stack's products of at most this many multiply-adds each run in one launch without
# packing where their plan has it; larger ones run a call each with it.
# Zen 5, Intel's CPU runtime, panel's B unpacked in one launch against packed a call a
# product: 2.5-2.6x as fast at 128^3 and 192^3, 1.7x at 256^3, 0.9-1.3x at 320^3 and
# 384^3, 0.6x at 512^3 (bench/results/2026-11-27-stacks)
STACK_UNPACKED_WORK = 2**24


def run_gemm(queue: Queue, variant: Variant, params: Mapping, a, b, *,
             poison: float | None = None, out=None, wait: bool = True) -> GemmResult:
    """C = A @ B with checked operands and resolved parameters: the plan's kernels in
    order on the in-order queue, kernel time the sum of their events.

    Numpy operands give a numpy C; when an operand is a ``pyopencl.array.Array`` C is a
    new device array on its queue (no host round trip). ``out`` (an array of either
    kind) receives C instead. ``poison`` fills C on the device before the kernels run, so
    elements they never write show up (tests use NaN); a plan whose kernels add into C
    gets zeros instead. ``wait=False`` returns a device C as soon as its kernels are
    queued (see :func:`_launch`). The result's params are those the plan ran
    (Variant.effective: the shape may cut some), as :func:`run_stack`'s are.
    """
    start = time.perf_counter()
    m, k = a.shape
    n = b.shape[1]
    op_a, op_b = as_operand(a), as_operand(b)
    plan, sources, options = launch_plan(variant, tuple(params.items()), m, n, k, a.dtype,
                                         op_a.colmajor, op_b.colmajor)
    if plan.workspace:  # A, B and C alone were checked before (api._gemm)
        check_device_memory(queue.device, a, b, plan.workspace)
    kernels = build(queue, plan, sources, options)
    c = out if out is not None else new_result(queue, (m, n), a.dtype, a, b)
    order_after_other_queues(queue, a, b, c)
    transfer = Transfer(queue, policy_for(queue.device), largest_host_array(a, b, c))
    c_arg, waits = transfer.output(c, 0 if plan.zero_c else poison)
    arguments = {"A": transfer.input(op_a.data), "B": transfer.input(op_b.data), "C": c_arg,
                 **scratch(queue, plan, transfer, a.dtype.itemsize)}
    i32 = np.int32
    arguments.update(M=i32(m), N=i32(n), K=i32(k), lda=i32(op_a.ld), ldb=i32(op_b.ld),
                     ldc=i32(n))
    events, kernel_ms, step_ms = _launch(queue, plan, kernels, arguments, waits, transfer, c,
                                         wait)
    wall_ms = (time.perf_counter() - start) * 1e3
    return GemmResult(c, queue.device, variant.name, variant.effective(m, n, k, params),
                      kernel_ms, wall_ms, event=events[-1], step_ms=step_ms)


def run_stack(queue: Queue, variant: Variant, params: Mapping, a: np.ndarray,
              b: np.ndarray, out: np.ndarray | None = None, *,
              poison: float | None = None, wait: bool = True) -> GemmResult | None:
    """C[i] = A[i] @ B[i] for stacks A (1 or S, M, K) and B (1 or S, K, N) in one launch
    (a stack of one matrix serves every product), C (S, M, N) new or ``out``: numpy
    arrays, or device arrays on ``queue`` (C then one too). None where the variant's plan
    for one product cannot be stacked (families.base.over_stack): the caller runs the
    products one by one instead. ``wait`` as for :func:`run_gemm`."""
    start = time.perf_counter()
    count = max(a.shape[0], b.shape[0])
    m, k = a.shape[1:]
    n = b.shape[2]
    found = launch_plan(variant, tuple(params.items()), m, n, k, a.dtype, False, False,
                        stack=count)
    if found is None:
        return None
    plan, sources, options = found
    kernels = build(queue, plan, sources, options)
    on_host = not (is_device_array(a) or is_device_array(b))  # C is numpy's (new_result)
    c_bytes = count * m * n * a.dtype.itemsize if out is None and on_host else 0
    transfer = Transfer(queue, policy_for(queue.device),
                        max(largest_host_array(a, b, out), c_bytes))
    alignment = stack_alignment(queue, transfer, a.dtype.itemsize)
    pitches = [pitch_for(rows, cols, alignment, a.dtype.itemsize)
               for rows, cols in ((m, k), (k, n), (m, n))]
    buffers = [(name, x * pitch, "") for name, x, pitch
               in zip("abc", (a.shape[0], b.shape[0], count), pitches)]
    buffers += [("workspace", elements, "") for elements in plan.workspace]
    if memory_problem(queue.device, buffers, a.dtype):
        return None  # one product at a time fits, as matmul checks for each (before C is made)
    c = out if out is not None else new_result(queue, (count, m, n), a.dtype, a, b)
    order_after_other_queues(queue, a, b, c)
    c_arg, waits = transfer.stack_output(c, pitches[2], poison)
    arguments = {"A": transfer.stack_input(a, pitches[0]),
                 "B": transfer.stack_input(b, pitches[1]), "C": c_arg,
                 **scratch(queue, plan, transfer, a.dtype.itemsize)}
    i32, i64 = np.int32, np.int64
    arguments.update(M=i32(m), N=i32(n), K=i32(k), lda=i32(k), ldb=i32(n), ldc=i32(n),
                     stride_a=i64(pitches[0] if a.shape[0] > 1 else 0),
                     stride_b=i64(pitches[1] if b.shape[0] > 1 else 0),
                     stride_c=i64(pitches[2]))
    events, kernel_ms, step_ms = _launch(queue, plan, kernels, arguments, waits, transfer, c,
                                         wait)
    wall_ms = (time.perf_counter() - start) * 1e3
    return GemmResult(c, queue.device, variant.name, variant.effective(m, n, k, params),
                      kernel_ms, wall_ms, event=events[-1], step_ms=step_ms)


def scratch(queue: Queue, plan, transfer: Transfer, itemsize: int) -> dict:
    """The plan's workspaces ("W0", ...) and ticket counters ("Z0", zero)."""
    arguments = {f"W{index}": transfer.workspace(elements * itemsize)
                 for index, elements in enumerate(plan.workspace)}
    if plan.counters:
        arguments["Z0"] = queue.zeroed_counters(plan.counters)
    return arguments


def stack_alignment(queue: Queue, transfer: Transfer, itemsize: int) -> int:
    """Bytes a stack's matrices start apart a multiple of: none beyond a value's through
    fine-grained SVM (Intel's CPU runtime reads numpy arrays where they lie, however
    aligned: the stack as it lies, where laying it out to a cache line copied it whole,
    5 ms of a 7 ms call at 262 x 1437 x 45 values on a Zen 5); a cache line where other
    drivers read host memory in place; else the device's base alignment (at least 256),
    as if each matrix were a buffer of its own."""
    if transfer.policy == "svm":
        return itemsize
    if transfer.in_place:
        return 64
    return max(256, queue.device.handle.mem_base_addr_align // 8)


def build(queue: Queue, plan, sources, options) -> list:
    """The plan's kernels, built (or found built) before the call queues any command: a
    build that fails then leaves nothing queued over the caller's arrays."""
    return [queue.kernel(source, step.kernel, opts)
            for step, source, opts in zip(plan.steps, sources, options)]


def _launch(queue: Queue, plan, kernels: list, arguments: dict, waits,
            transfer: Transfer, c, wait: bool) -> tuple[list, float, tuple]:
    """The plan's kernels in order on the in-order queue, then C where the caller gets
    it: (events, kernel ms, each step's ms).

    A call of device arrays only is not waited for when ``wait`` is False (a host
    operand may be read in place, or a temporary copy of it): the call returns once its
    commands are queued, as pyopencl's own array operations do, C holding the last of
    them as its event; its times are then NaN. What the caller queues next on that
    queue runs after them, and everything the kernels use is the queue's (its memory
    pool, its counters), so nothing is reused under them."""
    launched = time.perf_counter()
    events = []
    for step, kernel in zip(plan.steps, kernels):
        args = [arguments[x] if isinstance(x, str) else np.int32(x) for x in step.args]
        events.append(queue.submit(kernel, step.ndrange, *args, wait_for=waits))
        waits = None
    if transfer.device_only and not wait:
        c.add_event(transfer.finish(events[-1], wait=False).cl_event)
        return events, float("nan"), ()
    if queue.profiling:
        # no wait of our own first: the queue is in order, so bringing C back waits for
        # the kernels, and a driver's every blocking wait costs a wake-up (PoCL: ~0.1 ms)
        transfer.finish(events[-1])
        step_ms = tuple(e.kernel_ms for e in events)
        return events, sum(step_ms), step_ms
    events[-1].wait()  # the kernels' time is the host's, taken before C comes back
    kernel_ms = (time.perf_counter() - launched) * 1e3
    transfer.finish(events[-1])
    return events, kernel_ms, ()


def largest_host_array(*arrays) -> int:
    """Bytes of the largest numpy array among a call's A, B and C (device arrays move
    nothing; None, an ``out`` not given, is nothing)."""
    return max((x.nbytes for x in arrays if x is not None and not is_device_array(x)),
               default=0)


def new_result(queue: Queue, shape: tuple[int, ...], dtype, a, b):
    """C for a call: on the device (from the queue's pool) when an operand is there, else
    a numpy array."""
    if is_device_array(a) or is_device_array(b):
        return queue.empty_array(shape, dtype)
    return np.empty(shape, dtype=dtype)


def order_after_other_queues(queue: Queue, *arrays) -> None:
    """Make this call's commands wait for those pending on device arrays of another
    queue (pyopencl keeps an array's unfinished commands as its events): a barrier on
    ``queue``, which is in order. Commands of ``queue`` itself are in order already."""
    pending = [event for x in arrays if is_device_array(x) and x.queue != queue.cl_queue
               for event in x.events]
    if pending:
        import pyopencl as cl

        cl.enqueue_barrier(queue.cl_queue, wait_for=pending)


# Device arrays of another queue than the call's, each kept (with the call's last event)
# until the call has run: their pool (portgemm's to_device, a user's pyopencl
# MemoryPool) hands a deleted array's buffer to that queue's next allocation at once,
# which was written over while the call still read it. A list, not a cache: dropping an
# entry early is the bug.
_still_read: list = []
_still_read_lock = threading.Lock()


def keep_until_read(queue: Queue, result: GemmResult, *arrays) -> None:
    """Keep the device arrays among ``arrays`` that live on another queue than
    ``queue`` until the call's last command (C's, else the kernels') is done, and let go
    of those kept for calls that are done. No other queue is touched (a barrier there,
    under its lock, deadlocked two threads that each held their own queue's lock)."""
    others = tuple(x for x in arrays
                   if is_device_array(x) and x.queue is not None and x.queue != queue.cl_queue)
    if not (others or _still_read):
        return
    import pyopencl as cl

    c = result.c
    last = c.events[-1] if is_device_array(c) and c.events else result.event.cl_event
    done = cl.command_execution_status.COMPLETE
    with _still_read_lock:
        _still_read[:] = [(event, kept) for event, kept in _still_read
                          if event.command_execution_status != done]
        if others:
            _still_read.append((last, others))


def resident_queue(*arrays) -> Queue | None:
    """The queue the device arrays among ``arrays`` live on (the first one's), or None."""
    for x in arrays:
        if is_device_array(x):
            return Queue.for_array(x)
    return None


def queue_for(device: Device, a, b, out=None) -> Queue:
    """The device arrays' own queue when there are any (their context; the operands'
    first, then ``out``'s: numpy operands into a device ``out`` of another context, one
    made before clear_caches() say, failed with pyopencl's INVALID_CONTEXT), else the
    device's. ParameterError where ``out`` lives on another device than ``device``."""
    queue = resident_queue(a, b, out) or Queue.for_device(device)
    if queue.device != device:
        raise ParameterError(f"out lives on {queue.device.description}, but the call runs "
                             f"on {device.description}")
    return queue


@memoize(maxsize=256)
def _checked(impl: Variant, params: tuple, device: Device, itemsize: int) -> dict:
    """Variant.check, remembered: a warm call repeats the same parameters."""
    return impl.check({key: value for key, _, value in params}, device, itemsize)


class OpenCLBackend:
    name = "opencl"
    kernel_time = "OpenCL event time"

    def device(self, spec: DeviceSpec = None) -> Device:
        return select_device(spec)

    def devices(self, spec: str | None = None) -> list[Device]:
        if spec is None:
            return select_devices("all")
        return [select_device(None)] if spec == "" else select_devices(spec)

    def label(self, device: Device) -> str:
        return device.filter_string

    def variants(self, device: Device | None = None) -> list[str]:
        return variant_names(device)

    def variant(self, name: str) -> Variant:
        return get_variant(name)

    def resolve(self, device: Device, variant: str, params: Mapping[str, Any] | None,
                shape: tuple[int, int, int], dtype: np.dtype, layout: str = "CC") -> Resolved:
        if dtype == np.float64 and not device.has_fp64:
            raise TypeError(f"{device.description} has no float64 support; use float32")
        if variant == "auto":
            if params:
                raise ParameterError("params need a named variant; variant='auto' picks its own")
            choice = choose(device, *shape, dtype.itemsize, layout=layout)
            return Resolved(device, choice.variant, choice.params, get_variant(choice.variant),
                            choice.source, choice.reason)
        impl = get_variant(variant)
        if not params:  # some families choose theirs by a model of the device and shape
            params = named_defaults(variant, device, *shape, dtype.itemsize, layout)
        # the type is part of the key: True == 1, but True is refused where 1 is not
        items = tuple((key, type(value), value) for key, value in (params or {}).items())
        try:
            hash(items)
        except TypeError:  # e.g. a list as a value: checked (and refused) without the memo
            checked = impl.check(dict(params), device, dtype.itemsize)
        else:
            checked = _checked(impl, items, device, dtype.itemsize)
        return Resolved(device, variant, checked, impl)

    def run_stack(self, resolved: Resolved, a: np.ndarray, b: np.ndarray, *,
                  out: np.ndarray | None = None, poison: float | None = None,
                  wait: bool = True) -> GemmResult | None:
        """A stack of products in one launch (:func:`run_stack`): the resolved
        parameters without split-K (the stack fills the device: splitting K is for a C
        of few tiles), or else without packing for small products (STACK_UNPACKED_WORK)
        and with the groups along K (tallskinny's GS) shared by the stack's products: a
        product's share of them, where that is one group or the last group sums them
        (FUSE: a launch of one; otherwise their sum is a launch of its own); None where
        neither runs in one launch. Device arrays run on their own queue."""
        count = max(a.shape[0], b.shape[0])
        shared = dict(UNSPLIT)
        groups = resolved.params.get("GS")
        if groups is not None and (groups <= count or resolved.params.get("FUSE")):
            shared["GS"] = -(-groups // count)  # the device's groups, as for one product
        tries = [with_values(resolved.params, shared)]
        if a.shape[1] * a.shape[2] * b.shape[2] <= STACK_UNPACKED_WORK:
            unpacked = with_values(tries[0], UNPACKED)
            tries += [unpacked] if unpacked != tries[0] else []
        queue = queue_for(resolved.device, a, b, out)
        for params in tries:
            if params != resolved.params:
                try:
                    params = resolved.impl.check(params, resolved.device, a.dtype.itemsize)
                except ParameterError:
                    continue
            # calls from several threads take turns (Queue.lock)
            with queue.lock, queue.drained_on_error():
                result = run_stack(queue, resolved.impl, params, a, b, out, poison=poison,
                                   wait=wait)
            if result is not None:
                keep_until_read(queue, result, a, b, out)
                result.source, result.reason = resolved.source, resolved.reason
                return result
        return None

    def resident_device(self, a, b) -> Device | None:
        """The device the operands' arrays live on (the first device array's), or None."""
        queue = resident_queue(a, b)
        return queue.device if queue is not None else None

    def run(self, resolved: Resolved, a, b, *, poison: float | None = None, out=None,
            wait: bool = True, queue: Queue | None = None) -> GemmResult:
        """``queue``: another queue on the same device (the tuner's, to free programs).
        Calls from several threads on one queue take turns (Queue.lock): a call of device
        arrays only holds it while it queues its commands, others until C is back."""
        queue = queue or queue_for(resolved.device, a, b, out)
        with queue.lock, queue.drained_on_error():
            result = run_gemm(queue, resolved.impl, resolved.params, a, b, poison=poison,
                              out=out, wait=wait)
        keep_until_read(queue, result, a, b, out)
        result.source, result.reason = resolved.source, resolved.reason
        return result


BACKEND = OpenCLBackend()
