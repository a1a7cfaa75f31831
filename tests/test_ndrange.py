"""Range/NDRange follow SYCL order and rules; the OpenCL mapping reverses dimensions."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from portgemm import NDRange, ParameterError, Queue, Range
from portgemm.runtime import round_up


def test_opencl_sizes_reverse_the_order():
    nd = NDRange((64, 128), (8, 32))
    assert nd.opencl_sizes() == ((128, 64), (32, 8))
    assert nd.group_range == (8, 4)
    assert nd.work_group_size == 256


def test_three_dimensions():
    nd = NDRange(Range(2, 4, 6), Range(1, 2, 3))
    assert nd.opencl_sizes() == ((6, 4, 2), (3, 2, 1))


def test_global_not_multiple_of_local_is_an_error():
    with pytest.raises(ValueError, match="not a multiple"):
        NDRange((100, 64), (16, 16))


@given(extent=st.lists(st.integers(1, 5000), min_size=1, max_size=3),
       data=st.data())
def test_covering_is_the_smallest_multiple(extent, data):
    local = data.draw(st.lists(st.integers(1, 64), min_size=len(extent), max_size=len(extent)))
    nd = NDRange.covering(extent, local)
    for e, l, g in zip(extent, local, nd.global_range):
        assert g % l == 0 and g >= e and g - e < l
        assert g == round_up(e, l)


@pytest.mark.parametrize("bad", [(), (1, 2, 3, 4), (0, 4), (-1,)])
def test_bad_ranges(bad):
    with pytest.raises(ValueError):
        Range(*bad) if bad else Range(())


def test_mismatched_dimensions():
    with pytest.raises(ValueError, match="dimensions"):
        NDRange((4, 4), (4,))


def test_numpy_integers_are_sizes():
    """np.int64(8) is a size, as 8 is (it was taken for a sequence and refused)."""
    assert Range(np.int64(8)).sizes == (8,) and Range([np.int32(3), 2]).sizes == (3, 2)
    assert NDRange(np.prod([4, 8]), np.int64(4)).opencl_sizes() == ((32,), (4,))
    # an array of sizes is a sequence of them (it was taken for one size and refused)
    assert NDRange(np.array([64, 32]), np.array([16, 8])).opencl_sizes() == ((32, 64), (8, 16))


@pytest.mark.parametrize("wrong", [None, "cpu"])
def test_for_cl_queue_takes_a_pyopencl_queue(wrong):
    """None made a private queue of the default device; a string an AttributeError."""
    with pytest.raises(TypeError, match="pyopencl.CommandQueue"):
        Queue.for_cl_queue(wrong)


@pytest.mark.parametrize("bad", [lambda: Range(2.7, 4), lambda: Range(2.5),
                                 lambda: NDRange(8.0, 4), lambda: Range("12"),
                                 lambda: NDRange((8.9,), (4,)), lambda: Range(True)])
def test_sizes_that_are_not_integers_are_refused(bad):
    """A float was cut (Range(2.7, 4) gave (2, 4)) and a string parsed digit by digit
    (Range('12') gave (1, 2)); both are TypeError now."""
    with pytest.raises(TypeError, match="integer"):
        bad()


def test_covering_with_mismatched_dimensions():
    with pytest.raises(ValueError, match="differ in dimensions"):
        NDRange.covering((10, 3), 4)  # an IndexError before


def test_queue_arguments_of_the_wrong_kind(any_device):
    """One option as a string is that option (its characters made a build fail); a
    launch wants an NDRange (an AttributeError from inside before); a negative buffer
    size is refused (it made a 1-byte buffer)."""
    queue = Queue(any_device)
    kernel = queue.kernel("__kernel void fill(__global int *x) { x[get_global_id(0)] = X; }",
                          "fill", "-DX=7")
    x = queue.empty(16)
    with pytest.raises(TypeError, match="NDRange"):
        queue.submit(kernel, Range(4), x)
    queue.submit(kernel, NDRange(4, 4), x).wait()
    assert queue.to_host(x, np.empty(4, np.int32)).tolist() == [7] * 4
    with pytest.raises(ValueError):
        queue.empty(-5)
    too_wide = any_device.max_work_group_size * 2  # pyopencl's INVALID_WORK_GROUP_SIZE
    with pytest.raises(ParameterError, match="max_work_group_size"):
        queue.submit(kernel, NDRange(too_wide, too_wide), x)


def test_user_kernel_sees_sycl_order(any_device):
    """A kernel's get_global_id(0) is the LAST SYCL dimension (fastest varying)."""
    queue = Queue(any_device)
    kernel = queue.kernel("""
        __kernel void ids(__global int *out) {
            int row = get_global_id(1), col = get_global_id(0);
            out[row * get_global_size(0) + col] = row * 1000 + col;
        }""", "ids")
    rows, cols = 6, 8
    out = queue.empty(rows * cols * 4)
    event = queue.submit(kernel, NDRange((rows, cols), (3, 4)), out)
    host = queue.to_host(out, np.empty((rows, cols), np.int32), wait_for=[event.cl_event])
    expected = np.arange(rows)[:, None] * 1000 + np.arange(cols)[None, :]
    assert np.array_equal(host, expected)
    assert event.end_ns >= event.start_ns >= event.submit_ns > 0
    assert event.kernel_ms >= 0


def test_queue_docstring_example_runs(any_device):
    import pyopencl as cl

    queue = Queue(any_device)
    square = queue.kernel("""__kernel void square(__global float *x) {
                             size_t i = get_global_id(0); x[i] *= x[i]; }""", "square")
    x = queue.to_device(np.arange(8, dtype=np.float32))
    queue.submit(square, NDRange(8, 4), x)
    assert np.array_equal(queue.to_host(x, np.empty(8, np.float32)),
                          np.arange(8, dtype=np.float32) ** 2)
    # the kernel writes it: a READ_ONLY buffer would be undefined behaviour, which
    # Intel's runtime let pass
    assert x.flags & cl.mem_flags.READ_WRITE


def test_scalar_arguments_of_every_type_reach_the_kernel_on_every_launch(any_device):
    """submit declares a kernel's scalar types once (pyopencl then packs them itself):
    each launch must still see its own values, in every position and type, and a
    kernel given other types later gets them declared again."""
    queue = Queue(any_device)
    kernel = queue.kernel("""
        __kernel void mix(int i, __global float *out, float x, uint u, long l) {
            out[0] = i; out[1] = x; out[2] = u; out[3] = l; }""", "mix")
    out = queue.empty(16)
    for i, x, u, l in [(3, 0.5, 7, -9), (-4, 2.25, 1 << 20, 1 << 40), (0, -1.0, 0, 0)]:
        event = queue.submit(kernel, NDRange(1, 1), np.int32(i), out, np.float32(x),
                             np.uint32(u), np.int64(l))
        host = queue.to_host(out, np.empty(4, np.float32), wait_for=[event.cl_event])
        assert host.tolist() == [i, x, u, float(np.float32(l))]
    with pytest.raises(Exception):  # a type that does not fit its position is refused
        queue.submit(kernel, NDRange(1, 1), out, out, np.float32(1), np.uint32(1), np.int64(1))


@pytest.mark.parametrize("shape", [(7,), (3, 5), (4, 0, 6), (2, 3, 1), ()])
@pytest.mark.parametrize("fast", [True, False])
def test_empty_array_is_pyopencls_own(any_device, shape, fast, monkeypatch):
    """Queue.empty_array (pyopencl's fast form, or its public one where that form is
    refused) gives the array ``pyopencl.array.empty`` gives, from the queue's pool."""
    import pyopencl.array as cl_array

    queue = Queue.for_device(any_device)
    theirs = cl_array.empty(queue.cl_queue, shape, np.float64, allocator=queue.allocator)
    if fast:  # the fast form, not a fall back to the public one
        monkeypatch.setattr(cl_array, "empty", None)
    else:
        class NoFastForm(cl_array.Array):
            def __init__(self, *args, _fast=False, **kwargs):
                if _fast:
                    raise TypeError("unexpected keyword argument '_fast'")
                super().__init__(*args, **kwargs)
        monkeypatch.setattr(cl_array, "Array", NoFastForm)
    ours = queue.empty_array(shape, np.float64)
    for name in ("shape", "strides", "dtype", "size", "nbytes", "offset", "queue",
                 "context", "allocator"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.flags.c_contiguous and type(ours) is type(theirs)
    monkeypatch.undo()  # pyopencl's kernels check their arrays against its own class
    if ours.size:
        ours.fill(2.5)
        assert np.all(ours.get() == 2.5)


def test_queue_over_a_users_queue_and_its_events(any_device):
    """A Queue over the user's out-of-order pyopencl queue ran its commands at once (a
    read before the kernel had written: 10 of 10 wrong); wait_for takes portgemm's own
    Events, alone or in a list (std::bad_cast and 'not iterable' before); a kernel name
    the program lacks names the ones it has; times of a queue made without profiling
    say so."""
    import pyopencl as cl

    context = cl.Context([any_device.handle])
    properties = cl.command_queue_properties
    for flags in (properties.OUT_OF_ORDER_EXEC_MODE_ENABLE, 0):
        try:
            users = cl.CommandQueue(context, any_device.handle, properties=flags)
        except cl.Error:  # a driver without out-of-order queues
            continue
        queue = Queue(any_device, cl_queue=users)
        assert not queue.cl_queue.properties & properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
        kernel = queue.kernel("""__kernel void slow(__global float *x) {
            float v = 0; for (int i = 0; i < 200000; ++i) v += 1e-6f;
            x[get_global_id(0)] = 1 + v * 0; }""", "slow")
        x = queue.empty(16)
        event = queue.submit(kernel, NDRange(4, 4), x)
        again = queue.submit(kernel, NDRange(4, 4), x, wait_for=event)
        queue.submit(kernel, NDRange(4, 4), x, wait_for=[event, again.cl_event])
        assert queue.to_host(x, np.empty(4, np.float32)).tolist() == [1.0] * 4
        with pytest.raises(ParameterError, match="no kernel 'fast'.*slow"):
            queue.kernel("__kernel void slow(__global float *x) { x[0] = 1; }", "fast")
        if not flags:
            with pytest.raises(RuntimeError, match="without profiling"):
                event.kernel_ms
