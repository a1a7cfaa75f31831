"""Operands on the device, ``out=``, pinned host arrays, and every transfer policy (the GPU
paths -- staged copies through pinned buffers -- run on the CPU devices here)."""

from __future__ import annotations

import numpy as np
import pytest

import portgemm
from portgemm.backends import transfers
from portgemm.runtime import Queue

from conftest import assert_close, held_elsewhere

SHAPES = [(1, 1, 1), (37, 29, 41), (300, 2000, 1100), (2100, 40, 3000)]  # > 8 MB: chunks


def operands(m, n, k, seed=0):
    rng = np.random.default_rng([seed, m, n, k])
    return (rng.standard_normal((m, k)).astype(np.float32),
            rng.standard_normal((k, n)).astype(np.float32))


@pytest.mark.parametrize("policy", transfers.POLICIES)
def test_every_transfer_policy(device, policy, monkeypatch):
    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, policy)
    monkeypatch.setattr(transfers, "STAGED_FROM_BYTES", 0)  # "staged" stages every array
    for shape in SHAPES:
        a, b = operands(*shape)
        assert_close(portgemm.gemm(a, b, device=device, variant="xgemm", poison=np.nan).c, a, b)
        out = np.full((shape[0], shape[1]), np.nan, np.float32)
        assert portgemm.gemm(np.asfortranarray(a), b, device=device, out=out).c is out
        assert_close(out, a, b)
        a.flags.writeable = b.flags.writeable = False  # a read-only memmap, a broadcast view
        assert_close(portgemm.gemm(a, b, device=device, poison=np.nan).c, a, b)


def test_staged_copies_many_chunks_in_a_row(any_device, monkeypatch):
    """Two operands through the same pinned buffers: the second waits for the first."""
    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, "staged")
    monkeypatch.setattr(transfers, "STAGED_FROM_BYTES", 0)
    monkeypatch.setattr(transfers, "CHUNK_BYTES", 4096)  # many chunks of a small problem
    transfers.staging_for.cache_clear()
    try:
        a, b = operands(70, 90, 130)
        for _ in range(3):
            assert_close(portgemm.matmul(a, b, device=any_device), a, b)
    finally:
        transfers.staging_for.cache_clear()


@pytest.mark.parametrize("bound, staged_bytes", [
    (130 * 90 * 4, [70 * 130 * 4, 130 * 90 * 4, 70 * 90 * 4]),  # B reaches it: all three
    (130 * 90 * 4 + 1, []),                                      # none does: plain copies
])
def test_staged_policy_stages_a_call_with_a_large_array(any_device, monkeypatch, bound,
                                                        staged_bytes):
    """A call stages its arrays (A 70 x 130 floats, 36,400 bytes; B 46,800; C 25,200)
    where the largest reaches STAGED_FROM_BYTES, and copies them plainly where not."""
    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, "staged")
    monkeypatch.setattr(transfers, "STAGED_FROM_BYTES", bound)
    staged = []
    upload, download = transfers.staged_upload, transfers.staged_download
    monkeypatch.setattr(transfers, "staged_upload",
                        lambda queue, host, buffer: (staged.append(host.nbytes),
                                                     upload(queue, host, buffer)))
    monkeypatch.setattr(transfers, "staged_download",
                        lambda queue, buffer, host: (staged.append(host.nbytes),
                                                     download(queue, buffer, host)))
    a, b = operands(70, 90, 130)
    assert_close(portgemm.matmul(a, b, device=any_device), a, b)
    assert staged == staged_bytes


def test_to_host_reads_a_device_array_back(device, monkeypatch):
    """portgemm.to_host: a device array's values (into ``out`` when given), a numpy
    array as it is; it holds the array's queue's lock meanwhile."""
    import portgemm.memory as memory

    a = operands(5, 3, 7)[0]
    a_dev = portgemm.to_device(a, device)
    assert np.array_equal(portgemm.to_host(a_dev), a)
    out = np.full_like(a, np.nan)
    assert portgemm.to_host(a_dev, out=out) is out and np.array_equal(out, a)
    assert portgemm.to_host(a) is a
    lock, held = Queue.for_device(device).lock, []

    class Watched:  # a device array whose read notes whether its queue's lock is held
        queue, flags, shape, dtype = a_dev.queue, a_dev.flags, a_dev.shape, a_dev.dtype

        def get(self, ary=None):
            held.append(held_elsewhere(lock))
            return a

    is_device = memory.is_device_array
    monkeypatch.setattr(memory, "is_device_array",
                        lambda x: isinstance(x, Watched) or is_device(x))
    portgemm.to_host(Watched())
    assert held == [True]


def test_to_host_into_any_layout_and_from_any_view(device):
    """to_host laid the device's bytes into ``out`` in out's own order (a Fortran-order
    out got C's rows scrambled, silently) and refused views with pyopencl's assertion."""
    x = np.arange(7 * 9, dtype=np.float32).reshape(7, 9)
    x_dev = portgemm.to_device(x, device)
    for out in (np.empty((7, 9), np.float32, order="F"), np.empty((9, 7), np.float32).T,
                np.empty((7, 18), np.float32)[:, ::2], np.empty((7, 9), np.float64)):
        out[...] = np.nan
        assert portgemm.to_host(x_dev, out=out) is out and np.array_equal(out, x)
    with pytest.raises(ValueError, match="shape"):
        portgemm.to_host(x_dev, out=np.empty((9, 7), np.float32))
    views = {"columns": (x_dev[:, 2:5], x[:, 2:5]), "block": (x_dev[3:6, 1:8], x[3:6, 1:8]),
             "transposed": (x_dev.T, x.T), "one column": (x_dev[1:, 4], x[1:, 4]),
             "block transposed": (x_dev[2:5, 1:3].T, x[2:5, 1:3].T)}
    for name, (view, expected) in views.items():
        got = portgemm.to_host(view)
        assert got.shape == expected.shape and np.array_equal(got, expected), name


def test_a_column_of_a_device_matrix_as_a_vector(device):
    """b_dev[:, j] is a vector whose values lie a row apart: matrix @ it, it @ matrix,
    it @ another, a stack @ it (ParameterError 'rows or columns must each lie contiguous'
    before, while b_dev[:, j:j + 1] ran)."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    s = rng.standard_normal((2, 5, 4)).astype(np.float32)
    a_dev, b_dev, s_dev = (portgemm.to_device(x, device) for x in (a, b, s))
    for j in range(3):
        for got, expected in ((portgemm.matmul(a_dev, b_dev[:, j]), a @ b[:, j]),
                              (portgemm.matmul(b_dev[:, j], a_dev.T), b[:, j] @ a.T),
                              (portgemm.matmul(b_dev[:, j], b_dev[:, 2 - j]), b[:, j] @ b[:, 2 - j]),
                              (portgemm.matmul(s_dev, b_dev[:, j]), s @ b[:, j])):
            np.testing.assert_allclose(portgemm.to_host(got), expected, rtol=1e-5, atol=1e-5)


def test_out_of_the_other_kind(device):
    """C made on the device into a numpy out that is not C-contiguous, C made from numpy
    operands into a device out at an offset, and stacks of either kind into an out of the
    other: each raised from deep inside (a dtype('O') cast, a missing .queue, 'setting an
    array element with a sequence')."""
    def agrees(got, expected):
        assert not np.isnan(got).any()  # every element written
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)

    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    out = np.full((5, 3), np.nan, np.float32, order="F")
    assert portgemm.matmul(a_dev, b_dev, out=out) is out
    agrees(out, a @ b)
    whole = portgemm.to_device(np.full((8, 3), 7, np.float32), device)
    portgemm.matmul(a, b, device=device, out=whole[3:])
    got = whole.get()
    assert (got[:3] == 7).all()
    agrees(got[3:], a @ b)
    s, t = rng.standard_normal((4, 5, 4)).astype(np.float32), rng.standard_normal((4, 4, 3)).astype(np.float32)
    s_dev, t_dev = portgemm.to_device(s, device), portgemm.to_device(t, device)
    out = np.full((2, 5, 3), np.nan, np.float32)
    portgemm.matmul(s_dev[::2], t_dev[::2], out=out)
    agrees(out, s[::2] @ t[::2])
    for variant in ("auto", "phvm"):
        out_dev = portgemm.to_device(np.full((4, 5, 3), np.nan, np.float32), device)
        portgemm.matmul(s, t, device=device, variant=variant, out=out_dev)
        agrees(out_dev.get(), s @ t)
        portgemm.matmul(a, t, device=device, variant=variant, out=out_dev)
        agrees(out_dev.get(), a @ t)


def test_arrays_of_an_out_of_order_queue(device):
    """A plan's steps follow one another (a packing, a product, a sum of slices): on
    the operands' out-of-order queue they ran at once and C was wrong (Intel's runtime:
    panel at 300 x 200 x 100, tallskinny at 5 x 7 x 300000). portgemm runs them on an
    in-order queue of its own in that context, after the operands' commands."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    context = Queue.for_device(device).context
    try:
        queue = cl.CommandQueue(context, device.handle, properties=(
            cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE))
    except cl.Error:
        pytest.skip(f"{device.description} has no out-of-order queues")
    for m, n, k in [(5, 7, 30000), (300, 200, 100), (513, 257, 129)]:
        a, b = operands(m, n, k)
        a_dev, b_dev = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
        assert_close(portgemm.matmul(a_dev, b_dev).get(), a, b)
        out = cl_array.empty(queue, (m, n), np.float32)
        assert portgemm.matmul(a_dev, b_dev, out=out) is out
        assert_close(out.get(), a, b)
        stack = portgemm.matmul(cl_array.to_device(queue, np.stack([a, 2 * a])), b_dev)
        assert_close(stack.get()[1], 2 * a, b)
    # a stack that is not C-contiguous goes a pair at a time: its C was made on the
    # out-of-order queue and each product's on the in-order one (pyopencl's assertion)
    a, b = operands(40, 30, 20)
    every_other = cl_array.to_device(queue, np.stack([a, 3 * a, 2 * a]))[::2]
    stack = portgemm.matmul(every_other, cl_array.to_device(queue, np.stack([b, b])))
    assert_close(stack.get()[1], 2 * a, b)


def test_device_arrays_of_two_contexts_are_refused(device):
    """Arrays of one device in two OpenCL contexts (two pieces of code, or before and
    after clear_caches): a ParameterError saying so (pyopencl's INVALID_CONTEXT from
    inside before); each still computes with arrays of its own context."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    a, b = operands(6, 5, 7)
    context = cl.Context([device.handle])  # held here: with the queue alone holding it,
    # pyopencl raised INVALID_CONTEXT on Intel's runtime
    queue = cl.CommandQueue(context)
    other_a, other_b = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
    mine_a, mine_b = portgemm.to_device(a, device), portgemm.to_device(b, device)
    for call in (lambda: portgemm.matmul(mine_a, other_b),
                 lambda: portgemm.matmul(other_a, mine_b),
                 lambda: portgemm.matmul(mine_a, mine_b,
                                         out=cl_array.empty(queue, (6, 5), np.float32))):
        with pytest.raises(portgemm.ParameterError, match="share an OpenCL context"):
            call()
    assert_close(portgemm.to_host(portgemm.matmul(other_a, other_b)), a, b)
    assert_close(portgemm.to_host(portgemm.matmul(mine_a, mine_b)), a, b)


def test_device_arrays_stay_on_the_device(device):
    import pyopencl.array as cl_array

    queue = Queue.for_device(device)
    a, b = operands(61, 47, 129)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    result = portgemm.gemm(a_dev, b_dev)
    assert isinstance(result.c, cl_array.Array) and result.c.queue == queue.cl_queue
    assert result.device == device and result.kernel_ms > 0
    assert_close(result.c.get(), a, b)
    mixed = portgemm.matmul(a, b_dev)  # one numpy operand goes to the array's device
    assert isinstance(mixed, cl_array.Array)
    assert_close(mixed.get(), a, b)
    out = cl_array.empty(queue.cl_queue, (61, 47), np.float32)
    assert portgemm.gemm(a_dev, b_dev, out=out).c is out
    assert_close(out.get(), a, b)
    transposed = portgemm.to_device(np.asfortranarray(a), device)
    assert transposed.flags.f_contiguous or transposed.flags.c_contiguous


def _held(queue):
    """A user event that holds back every later command of the in-order ``queue``."""
    import pyopencl as cl

    gate = cl.UserEvent(queue.context)
    cl.enqueue_barrier(queue, wait_for=[gate])
    return gate


def test_matmul_of_device_arrays_does_not_wait_for_its_kernels(device):
    """matmul returns once its commands are queued (as pyopencl's operations do): here
    the queue is held back until after the call, so a call that waited would never
    return; C's value is right once the queue runs, and C carries its last event."""
    import threading

    import pyopencl as cl

    queue = Queue.for_device(device)
    a, b = operands(61, 47, 129)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    rng = np.random.default_rng(1)
    stack_a, stack_b = (rng.standard_normal(shape).astype(np.float32)
                        for shape in ((3, 7, 9), (3, 9, 5)))
    stacks = [portgemm.to_device(x, device) for x in (stack_a, stack_b)]
    # each kernel run once first: NVIDIA's driver (580) crashed in the get() below when a
    # kernel's first launch had waited on the gate (bench/gpu/gate_probe.py)
    portgemm.matmul(a_dev, b_dev).get(), portgemm.matmul(*stacks).get()
    gate = _held(queue.cl_queue)
    results = {}
    worker = threading.Thread(target=lambda: results.update(
        plain=portgemm.matmul(a_dev, b_dev), stack=portgemm.matmul(*stacks)))
    worker.start()
    worker.join(timeout=60)
    gate.set_status(cl.command_execution_status.COMPLETE)
    worker.join()
    assert set(results) == {"plain", "stack"}, "matmul waited for kernels held back"
    for c in results.values():
        assert c.events and c.events[-1].command_queue == queue.cl_queue
    assert_close(results["plain"].get(), a, b)
    for got, x, y in zip(results["stack"].get(), stack_a, stack_b):
        assert_close(got, x, y)
    assert np.isfinite(portgemm.gemm(a_dev, b_dev).kernel_ms)  # gemm still times


def test_operands_of_another_queue_are_waited_for(device):
    """An operand on a second queue of the same context, with a fill still pending
    there: the call's kernels run after it (the first operand's queue runs the call)."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    queue = Queue.for_device(device)
    other = cl.CommandQueue(queue.context)
    a, b = operands(40, 30, 50)
    a_dev = portgemm.to_device(a, device)
    b_dev = cl_array.to_device(other, b)
    portgemm.matmul(a_dev, b_dev).get(), b_dev.copy().fill(0).get()  # kernels run once
    gate = _held(other)
    b_dev.fill(2.0)  # pending until the gate opens
    c = portgemm.matmul(a_dev, b_dev)
    gate.set_status(cl.command_execution_status.COMPLETE)
    assert_close(c.get(), a, np.full_like(b, 2.0))


def test_an_operand_deleted_while_another_queue_reads_it(device):
    """B from to_device (portgemm's queue and its memory pool), the call on A's queue,
    held back: B deleted at once went back to the pool, and the next to_device got its
    buffer and wrote over B under the kernels (C wrong by a factor of 10^6). B is kept
    until the call has run."""
    import gc
    import threading

    import pyopencl as cl
    import pyopencl.array as cl_array

    queue = Queue.for_device(device)
    other = cl.CommandQueue(queue.context)
    a, b = operands(64, 48, 40)
    a_dev = cl_array.to_device(other, a)
    b_dev = portgemm.to_device(b, device)
    portgemm.matmul(a_dev, b_dev, variant="naive").get()  # kernels built
    gate = _held(other)
    c = portgemm.matmul(a_dev, b_dev, variant="naive")
    del b_dev
    gc.collect()
    opener = threading.Timer(0.3, gate.set_status, [cl.command_execution_status.COMPLETE])
    opener.start()
    junk = portgemm.to_device(np.full_like(b, 1e6), device)
    opener.join()
    assert_close(c.get(), a, b)
    assert junk.get()[0, 0] == 1e6


def test_arrays_of_your_own_pyopencl_context(any_device):
    """A queue made by pyopencl code, without profiling: portgemm runs on it."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    context = cl.Context([any_device.handle])
    queue = cl.CommandQueue(context)
    a, b = operands(33, 17, 65)
    c = portgemm.gemm(cl_array.to_device(queue, a), cl_array.to_device(queue, b))
    assert c.c.queue == queue and c.kernel_ms > 0
    assert_close(c.c.get(), a, b)


def test_device_array_errors(any_device):
    import pyopencl.array as cl_array

    a, b = operands(8, 8, 8)
    a_dev = portgemm.to_device(a, any_device)
    with pytest.raises(TypeError, match="host backend takes numpy"):
        portgemm.matmul(a_dev, b, backend="host")
    with pytest.raises(portgemm.ParameterError, match="out must be a"):
        portgemm.matmul(a, b, device=any_device, out=np.empty((8, 7), np.float32))
    with pytest.raises(portgemm.ParameterError, match="C-contiguous"):
        portgemm.matmul(a_dev, a_dev, out=portgemm.to_device(np.empty((8, 16), np.float32),
                                                             any_device)[:, ::2])
    other = [d for d in portgemm.get_devices() if d != any_device]
    if other:
        with pytest.raises(portgemm.ParameterError, match="operands live on"):
            portgemm.matmul(a_dev, b, device=other[0])
    empty = portgemm.matmul(portgemm.to_device(np.ones((3, 0), np.float32), any_device),
                            np.ones((0, 4), np.float32))
    assert isinstance(empty, cl_array.Array) and np.all(empty.get() == 0)
    masked = np.ma.masked_array(a, mask=a > 1)  # to_device dropped the mask matmul refuses
    with pytest.raises(TypeError, match="masked arrays"):
        portgemm.to_device(masked, any_device)
    queueless = a_dev.with_queue(None)  # a TypeError naming for_cl_queue, before
    for call in (lambda: portgemm.matmul(queueless, a_dev), lambda: portgemm.to_host(queueless)):
        with pytest.raises(ValueError, match="with_queue"):
            call()


def test_pinned_arrays(any_device):
    a, b = operands(50, 60, 70)
    pinned = portgemm.empty_pinned(a.shape, np.float32, any_device)
    pinned[...] = a
    assert transfers.is_pinned(pinned) and transfers.is_pinned(pinned[3:])
    assert not transfers.is_pinned(a)
    out = portgemm.empty_pinned((50, 60), np.float32, any_device)
    assert portgemm.gemm(pinned, b, device=any_device, out=out).c is out
    assert_close(out, a, b)


def test_device_views_of_rows_or_columns_apart(device):
    """Columns of a device matrix (b_dev[:, 3:9]), a block from its middle, a slice of a
    transposed one: each packed on the device, run after run (they were refused); a
    view whose values lie apart both ways is refused, naming why."""
    rng = np.random.default_rng(23)
    a = rng.standard_normal((40, 30)).astype(np.float32)
    b = rng.standard_normal((30, 20)).astype(np.float32)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    a_t = portgemm.to_device(np.ascontiguousarray(a.T), device).T  # F-contiguous
    for (x_dev, x), (y_dev, y) in [((a_dev, a), (b_dev[:, 3:9], b[:, 3:9])),
                                   ((a_dev[3:17, 4:29], a[3:17, 4:29]),
                                    (b_dev[4:29, 2:19], b[4:29, 2:19])),
                                   ((a_t[2:30, 5:25], a[2:30, 5:25]), (b_dev[5:25], b[5:25])),
                                   ((a_t[2:22, 5:25], a[2:22, 5:25]),  # square: columns
                                    (b_dev[5:25, :20], b[5:25, :20]))]:
        assert not (x_dev.flags.forc and y_dev.flags.forc)
        assert_close(portgemm.to_host(portgemm.matmul(x_dev, y_dev)), x, y)
    with pytest.raises(portgemm.ParameterError, match="rows or columns"):
        portgemm.matmul(a_dev[:, ::2], b_dev[::2])


def test_device_views_at_an_offset(device):
    """Rows of a device array from the middle (its buffer's bytes from an offset on), a
    stack's middle matrices: copied to a buffer's start on the device, and right."""
    rng = np.random.default_rng(17)
    x = rng.standard_normal((50, 19)).astype(np.float32)
    w = rng.standard_normal((19, 23)).astype(np.float32)
    x_dev, w_dev = portgemm.to_device(x, device), portgemm.to_device(w, device)
    view = x_dev[10:40]
    assert view.offset
    assert_close(portgemm.matmul(view, w_dev).get(), x[10:40], w)
    stack = rng.standard_normal((6, 19, 19)).astype(np.float32)
    square = np.ascontiguousarray(w[:, :19])
    c = portgemm.matmul(portgemm.to_device(stack, device)[2:5],
                        portgemm.to_device(square, device))
    np.testing.assert_allclose(c.get(), stack[2:5].astype(np.float64) @ square,
                               rtol=1e-4, atol=1e-4)



def test_numpy_operands_into_a_device_out_of_an_older_context(device):
    """clear_caches() makes portgemm's contexts anew; numpy operands into a device out
    made before failed with pyopencl's INVALID_CONTEXT. The product runs in out's
    context, as it does for device operands."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((6, 5)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)
    out = portgemm.to_device(np.full((6, 4), np.nan, np.float32), device)
    stack_out = portgemm.to_device(np.full((2, 6, 4), np.nan, np.float32), device)
    portgemm.clear_caches()
    assert portgemm.matmul(a, b, device=device, out=out) is out
    np.testing.assert_allclose(out.get(), a @ b, rtol=1e-5, atol=1e-5)
    s = np.stack([a, 2 * a])
    portgemm.matmul(s, b, device=device, out=stack_out)
    np.testing.assert_allclose(stack_out.get(), s @ b, rtol=1e-5, atol=1e-5)


def test_empty_pinned_takes_numpy_shapes_and_refuses_what_cannot_be(any_device):
    """An int shape (TypeError before), a negative dimension (pyopencl's INVALID_VALUE)
    and a size past max_mem_alloc_size (INVALID_BUFFER_SIZE) as numpy and the README say."""
    assert portgemm.empty_pinned(10, np.float32, any_device).shape == (10,)
    with pytest.raises(ValueError, match="negative"):
        portgemm.empty_pinned((-1, 4), np.float32, any_device)
    too_many = any_device.max_mem_alloc_size // 4 + 1
    with pytest.raises(portgemm.ParameterError, match="max_mem_alloc_size"):
        portgemm.empty_pinned((too_many,), np.float32, any_device)
    for wraps in [(2**32, 2**32), (2**62, 4)]:  # bytes past int64: a segfault before
        with pytest.raises(portgemm.ParameterError, match="max_mem_alloc_size"):
            portgemm.empty_pinned(wraps, np.float32, any_device)


def test_copy_into_from_a_device_array_at_an_offset(device):
    """copy_into dropped the offset of C's array (no src_offset): out got values shifted
    by it. No call of portgemm passes such a C yet; the function is general."""
    from portgemm.memory import copy_into

    c = np.random.default_rng(9).standard_normal((3, 4, 5)).astype(np.float32)
    whole = portgemm.to_device(np.concatenate([np.zeros(3, np.float32), c.ravel()]), device)
    out = portgemm.to_device(np.full(c.shape, np.nan, np.float32), device)
    copy_into(out, whole[3:].reshape(c.shape), wait=True)
    assert np.array_equal(out.get(), c)
