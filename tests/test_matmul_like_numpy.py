"""``portgemm.matmul`` against ``numpy.matmul`` on random calls of every kind a user's
code makes: matrices, vectors and broadcast stacks; operands C- or F-ordered, transposed
or strided views, one byte off alignment, byte-swapped, read-only, device arrays and
device views from a buffer's middle; ``out`` absent, C-ordered, F-ordered, strided, or
the operand itself. Each case's C against numpy's in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import portgemm

HOST_KINDS = ("C", "F", "transposed", "strided", "unaligned", "byte-swapped", "read-only")
SHAPES = {  # a's shape and b's, from (m, n, k, s)
    "matrices": lambda m, n, k, s: ((m, k), (k, n)),
    "row times matrix": lambda m, n, k, s: ((k,), (k, n)),
    "matrix times column": lambda m, n, k, s: ((m, k), (k,)),
    "stack times matrix": lambda m, n, k, s: ((s, m, k), (k, n)),
    "matrix times stack": lambda m, n, k, s: ((m, k), (s, k, n)),
    "stacks": lambda m, n, k, s: ((s, m, k), (s, k, n)),
    "broadcast stacks": lambda m, n, k, s: ((2, 1, m, k), (s, k, n)),
}
DEVICE_SHAPES = ("matrices", "row times matrix", "matrix times column",
                 "stack times matrix", "matrix times stack", "stacks")
CASES = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


def host_operand(x: np.ndarray, kind: str) -> np.ndarray:
    if kind == "C" or (x.ndim < 2 and kind in ("F", "transposed", "strided")):
        return np.ascontiguousarray(x)
    if kind == "F":
        return np.asfortranarray(x)
    if kind == "transposed":
        return np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
    if kind == "strided":
        return np.repeat(x, 2, axis=-1)[..., ::2]
    if kind == "unaligned":
        memory = np.empty(x.nbytes + 1, np.uint8)
        y = np.frombuffer(memory.data, x.dtype, x.size, offset=1).reshape(x.shape)
        y[...] = x
        return y
    if kind == "byte-swapped":
        return x.astype(x.dtype.newbyteorder("S"))
    y = x.copy()
    y.flags.writeable = False
    return y


def host_out(shape: tuple, dtype, kind: str):
    if kind == "none" or not shape:
        return None
    if kind == "C":
        return np.full(shape, np.nan, dtype)
    if kind == "F":
        return np.asfortranarray(np.full(shape, np.nan, dtype))
    return np.full(shape[:-1] + (2 * shape[-1],), np.nan, dtype)[..., ::2]  # strided


def draw(shape: str, m: int, n: int, k: int, s: int, dtype, seed: int):
    """A and B of the named shapes, and numpy's product of them in float64."""
    rng = np.random.default_rng(seed)
    shape_a, shape_b = SHAPES[shape](m, n, k, s)
    a = rng.standard_normal(shape_a).astype(dtype)
    b = rng.standard_normal(shape_b).astype(dtype)
    return a, b, np.matmul(a.astype(np.float64), b.astype(np.float64))


def assert_like(c, reference: np.ndarray, k: int, dtype) -> None:
    c = np.asarray(c)
    assert c.shape == reference.shape
    tolerance = (2e-5 if dtype == np.float32 else 1e-12) * max(1, k) ** 0.5 * 10
    np.testing.assert_allclose(c, reference, rtol=tolerance, atol=tolerance)


dims = st.integers(1, 40)


@CASES
@given(shape=st.sampled_from(list(SHAPES)), m=dims, n=dims, k=dims, s=st.integers(1, 3),
       dtype=st.sampled_from([np.float32, np.float64]),
       kind_a=st.sampled_from(HOST_KINDS), kind_b=st.sampled_from(HOST_KINDS),
       out_kind=st.sampled_from(["none", "C", "F", "strided", "a itself"]),
       seed=st.integers(0, 2**16))
def test_numpy_operands(device, shape, m, n, k, s, dtype, kind_a, kind_b, out_kind, seed):
    if dtype == np.float64 and not device.has_fp64:
        return
    a0, b0, reference = draw(shape, m, n, k, s, dtype, seed)
    a, b = host_operand(a0, kind_a), host_operand(b0, kind_b)
    if out_kind == "a itself":
        if a.shape != reference.shape or not a.flags.writeable or not a.dtype.isnative:
            return
        out = a
    else:
        out = host_out(reference.shape, dtype, out_kind)
    c = portgemm.matmul(a, b, device=device, out=out)
    if out is not None:
        assert c is out
    assert_like(c, reference, k, dtype)


@CASES
@given(shape=st.sampled_from(DEVICE_SHAPES), m=dims, n=dims, k=dims, s=st.integers(1, 3),
       dtype=st.sampled_from([np.float32, np.float64]),
       offset_a=st.integers(0, 3), offset_b=st.integers(0, 3),
       out_kind=st.sampled_from(["none", "C", "at an offset", "a itself"]),
       seed=st.integers(0, 2**16))
def test_device_operands(device, shape, m, n, k, s, dtype, offset_a, offset_b, out_kind,
                         seed):
    """Offsets: the operand is the rows (or stack matrices) from ``offset`` on of a
    larger device array."""
    if dtype == np.float64 and not device.has_fp64:
        return
    a0, b0, reference = draw(shape, m, n, k, s, dtype, seed)

    def on_device(x: np.ndarray, offset: int):
        before = np.zeros((offset,) + x.shape[1:], x.dtype)
        return portgemm.to_device(np.concatenate([before, x]), device)[offset:]

    a, b = on_device(a0, offset_a), on_device(b0, offset_b)
    out = None
    if out_kind == "C" and reference.shape:
        out = portgemm.to_device(np.full(reference.shape, np.nan, dtype), device)
    elif out_kind == "at an offset" and reference.shape:
        out = on_device(np.full(reference.shape, np.nan, dtype), 2)
    elif out_kind == "a itself" and a.shape == reference.shape:
        out = a
    c = portgemm.matmul(a, b, out=out)
    if out is not None:
        assert c is out
    assert_like(c.get() if hasattr(c, "get") else c, reference, k, dtype)


@pytest.mark.parametrize("kind", HOST_KINDS)
def test_each_operand_kind_is_exercised(kind):
    """The kinds are what they say (a kind that quietly became C-ordered would test
    nothing)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = host_operand(x, kind)
    np.testing.assert_array_equal(y, x)
    assert {"C": y.flags.c_contiguous, "F": y.flags.f_contiguous and not y.flags.c_contiguous,
            "transposed": not y.flags.c_contiguous,
            "strided": not (y.flags.c_contiguous or y.flags.f_contiguous),
            "unaligned": not y.flags.aligned, "byte-swapped": not y.dtype.isnative,
            "read-only": not y.flags.writeable}[kind]
