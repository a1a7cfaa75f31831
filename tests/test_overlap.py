"""An ``out`` that shares memory with an operand or is laid out otherwise than C is
written, and operands in the other byte order: numpy's answers. A kernel writing C over
A or B would overwrite values it still reads (before this was handled, ``matmul(a, b,
out=a)`` at 300 x 300 was off by 2e6), so C is made apart and copied in, as numpy does;
so too for an ``out`` that is not C-contiguous (numpy takes any), or a device array at
an offset into its buffer."""

from __future__ import annotations

import numpy as np
import pytest

import portgemm

from conftest import assert_close

SIDES = (1, 13, 96, 301)  # 301: many tiles and work-groups read A while others write C


def rng_matrix(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("n", SIDES)
@pytest.mark.parametrize("target", ["a", "b", "both"])
def test_out_is_an_operand(device, n, target):
    rng = np.random.default_rng(n)
    a, b = rng_matrix(rng, n, n), rng_matrix(rng, n, n)
    expected_a, expected_b = a.copy(), (a.copy() if target == "both" else b.copy())
    operands = {"a": (a, b, a), "b": (a, b, b), "both": (a, a, a)}[target]
    c = portgemm.matmul(operands[0], operands[1], device=device, out=operands[2])
    assert c is operands[2]
    assert_close(c, expected_a, expected_b)


def test_out_is_a_view_of_an_operand(device):
    """C in the memory of which A is the transpose (F-order): C's rows lie along A's
    columns, so each row written overwrites a column A still has to give."""
    rng = np.random.default_rng(1)
    memory = rng_matrix(rng, 64, 64)
    a = memory.T
    b = rng_matrix(rng, 64, 64)
    expected = a.copy()
    portgemm.gemm(a, b, device=device, out=memory)
    assert_close(memory, expected, b)


def test_out_beside_an_operand_in_one_array(device):
    """A and C halves of one array, apart: nothing to copy, and both stay right."""
    rng = np.random.default_rng(2)
    whole = rng_matrix(rng, 2, 50, 50)
    a, out = whole[0], whole[1]
    b = rng_matrix(rng, 50, 50)
    expected = a.copy()
    portgemm.matmul(a, b, device=device, out=out)
    assert_close(out, expected, b)
    np.testing.assert_array_equal(whole[0], expected)


@pytest.mark.parametrize("a_shape, b_shape, target",
                         [((4, 40, 30), (30, 30), "a"),       # A's rows as one product
                          ((4, 30, 30), (4, 30, 30), "a"),    # one launch
                          ((30, 30), (4, 30, 30), "b"),       # one A times a stack
                          ((4, 30, 30), (4, 30, 30), "b")])
def test_stack_out_is_an_operand(device, a_shape, b_shape, target):
    rng = np.random.default_rng(3)
    a, b = rng_matrix(rng, *a_shape), rng_matrix(rng, *b_shape)
    expected = np.matmul(a.astype(np.float64), b)
    out = a if target == "a" else b
    c = portgemm.matmul(a, b, device=device, out=out)
    assert c is out
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)


def test_vector_out_is_the_vector(device):
    rng = np.random.default_rng(4)
    a = rng_matrix(rng, 37, 37)
    v = rng_matrix(rng, 37)
    expected = a.astype(np.float64) @ v
    portgemm.matmul(a, v, device=device, out=v)
    np.testing.assert_allclose(v, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", ["a", "b"])
def test_device_out_is_an_operand(device, target):
    rng = np.random.default_rng(5)
    a, b = rng_matrix(rng, 70, 70), rng_matrix(rng, 70, 70)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    out = a_dev if target == "a" else b_dev
    c = portgemm.matmul(a_dev, b_dev, out=out)  # queued, not waited for
    assert c is out
    first = c.get()
    assert_close(first, a, b)
    result = portgemm.gemm(a_dev, b_dev, out=out)  # out holds A @ B now
    assert result.c is out
    if target == "a":
        assert_close(out.get(), first, b)
    else:
        assert_close(out.get(), a, first)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_byte_swapped_operands(device, dtype):
    """Arrays in the other byte order (read from another machine's file): copied into
    the machine's order, C in it."""
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("no float64 on this device")
    rng = np.random.default_rng(6)
    a, b = rng_matrix(rng, 33, 21, dtype=dtype), rng_matrix(rng, 21, 17, dtype=dtype)
    swapped = np.dtype(dtype).newbyteorder("S")
    c = portgemm.matmul(a.astype(swapped), b.astype(swapped), device=device)
    assert c.dtype == np.dtype(dtype) and c.dtype.isnative
    assert_close(c, a, b)
    stack = portgemm.matmul(np.stack([a, a]).astype(swapped), b, device=device)
    assert_close(stack[1], a, b)
    on_device = portgemm.to_device(a.astype(swapped), device)
    assert on_device.dtype == np.dtype(dtype)
    assert_close(portgemm.matmul(on_device, portgemm.to_device(b, device)).get(), a, b)


@pytest.mark.parametrize("layout", ["F", "columns of a wider array", "every other row",
                                    "stack transposed"])
def test_out_of_any_layout(device, layout):
    rng = np.random.default_rng(7)
    if layout == "stack transposed":
        a, b = rng_matrix(rng, 3, 4, 5), rng_matrix(rng, 5, 2)
        memory = np.full((3, 2, 4), np.nan, np.float32)
        out = memory.transpose(0, 2, 1)
    else:
        a, b = rng_matrix(rng, 37, 19), rng_matrix(rng, 19, 23)
        memory = np.full((74, 50), np.nan, np.float32)
        out = {"F": np.full((37, 23), np.nan, np.float32, order="F"),
               "columns of a wider array": memory[:37, 5:28],
               "every other row": memory[::2, :23]}[layout]
    c = portgemm.matmul(a, b, device=device, out=out)
    assert c is out
    np.testing.assert_allclose(out, np.matmul(a.astype(np.float64), b), rtol=1e-4,
                               atol=1e-4)
    if layout in ("columns of a wider array", "every other row"):
        written = np.zeros(memory.shape, bool)
        written[:37, 5:28] = layout == "columns of a wider array"
        written[::2, :23] |= layout == "every other row"
        assert np.isnan(memory[~written]).all()  # nothing written beside out


def test_device_out_at_an_offset(device):
    """Rows 3 on of a device array: C copied in at its offset, rows 0-2 left as they were."""
    rng = np.random.default_rng(8)
    a, b = rng_matrix(rng, 37, 19), rng_matrix(rng, 19, 23)
    whole = portgemm.to_device(np.full((40, 23), 7.0, np.float32), device)
    out = whole[3:]
    assert out.offset
    c = portgemm.matmul(portgemm.to_device(a, device), portgemm.to_device(b, device),
                        out=out)
    assert c is out
    result = whole.get()
    assert_close(result[3:], a, b)
    assert (result[:3] == 7.0).all()



def test_a_memory_mapped_out_is_written_in_place(tmp_path):
    """A memmap's ``offset`` is where it starts in its file, not in a device buffer: C
    goes straight into it, without the copy an offset device array needs."""
    from portgemm.operands import written_apart

    path = tmp_path / "c.bin"
    path.write_bytes(bytes(4096))
    out = np.memmap(path, dtype=np.float32, mode="r+", offset=64, shape=(4, 4))
    a = np.ones((4, 4), np.float32)
    assert out.offset == 64 and not written_apart(out, a, a)
    portgemm.matmul(a, a, out=out)
    out.flush()
    np.testing.assert_array_equal(np.fromfile(path, np.float32)[16:32], 4.0)
