"""Serial reference GEMMs against a float64 product, plus operand validation."""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from portgemm.backends.serial import SERIAL_ALGORITHMS, contiguous_operands

# Sizes with 1 and primes hit every remainder path (unroll-by-4 leftovers,
# partial tiles, odd halves, Strassen padding).
SIZES = [1, 2, 3, 7, 13, 31, 67, 129]
DTYPES = [np.float32, np.float64]
# Small tuning values that force several tiles / recursion levels at these sizes;
# D&C leaves are Python calls, so its cutoff is kept from getting tiny.
SMALL_PARAMS = {"block": [1, 3, 8, 16, 64], "cutoff": [5, 8, 16, 32]}


def relative_error(c, a, b):
    """Frobenius error of c against A @ B (in float64), relative to || |A| |B| ||.

    |A| |B| rather than A @ B is the scale a K-term dot product's rounding
    error is bounded by; relative to ||A @ B|| the error of a sum with
    cancellation (small C from large terms) has no useful bound.
    """
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    scale = np.linalg.norm(np.abs(a64) @ np.abs(b64))
    return np.linalg.norm(c.astype(np.float64) - a64 @ b64) / (scale if scale else 1.0)


def tolerance(dtype, k, name=""):
    """Rounding error of a length-k dot product grows at most ~k * eps; Strassen's
    extra additions and subtractions multiply it by a few per level."""
    factor = 16 if name == "strassen" else 2
    return factor * (k + 4) * np.finfo(dtype).eps


def random_operands(rng, m, k, n, dtype):
    return (rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype))


def check_product(name, params, a, b):
    function, _ = SERIAL_ALGORITHMS[name]
    c = function(a, b, **params)
    assert c.shape == (a.shape[0], b.shape[1])
    assert c.dtype == a.dtype
    assert c.flags.c_contiguous
    assert relative_error(c, a, b) <= tolerance(a.dtype, a.shape[1], name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(SERIAL_ALGORITHMS))
@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 7, 3), (13, 1, 31), (67, 129, 2), (129, 67, 131)])
def test_default_parameters(name, dtype, shape):
    a, b = random_operands(np.random.default_rng(sum(shape)), *shape, dtype)
    check_product(name, {}, a, b)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(SERIAL_ALGORITHMS)),
    dtype=st.sampled_from(DTYPES),
    m=st.sampled_from(SIZES),
    k=st.sampled_from(SIZES),
    n=st.sampled_from(SIZES),
    data=st.data(),
)
def test_random_shapes_and_parameters(name, dtype, m, k, n, data):
    _, defaults = SERIAL_ALGORITHMS[name]
    params = {key: data.draw(st.sampled_from(SMALL_PARAMS[key]), label=key) for key in defaults}
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    a, b = random_operands(np.random.default_rng(seed), m, k, n, dtype)
    check_product(name, params, a, b)


@pytest.mark.parametrize("name", ["divide_conquer", "strassen"])
def test_recursion_with_odd_sizes_at_every_level(name):
    # cutoff 4 on 67 x 31 x 45 recurses several levels through odd sizes.
    a, b = random_operands(np.random.default_rng(1), 67, 31, 45, np.float64)
    check_product(name, {"cutoff": 4}, a, b)


def test_tolerance_catches_a_dropped_term():
    # The checks must be able to fail: leaving out a single k term is caught.
    rng = np.random.default_rng(2)
    for dtype in DTYPES:
        a, b = random_operands(rng, 31, 129, 13, dtype)
        almost = a[:, :-1] @ b[:-1]
        assert relative_error(almost, a, b) > tolerance(dtype, 129, "strassen")


@pytest.mark.parametrize("name", sorted(SERIAL_ALGORITHMS))
def test_non_contiguous_layouts(name):
    function, _ = SERIAL_ALGORITHMS[name]
    rng = np.random.default_rng(3)
    a = np.asfortranarray(rng.standard_normal((13, 7)))
    b = rng.standard_normal((31, 7)).T  # a strided view
    c = function(a, b)
    assert c.flags.c_contiguous
    assert relative_error(c, a, b) <= tolerance(np.float64, 7)
    assert not np.shares_memory(c, a) and not np.shares_memory(c, b)


@pytest.mark.parametrize("name", sorted(SERIAL_ALGORITHMS))
def test_empty_dimensions_follow_numpy(name):
    """As everywhere in portgemm (portgemm.operands): (M, 0) @ (0, N) is an M x N zero
    matrix, M = 0 or N = 0 an empty one."""
    function, _ = SERIAL_ALGORITHMS[name]
    for m, k, n in [(0, 3, 2), (3, 0, 2), (3, 2, 0), (0, 0, 0), (2, 0, 300)]:
        a, b = np.ones((m, k)), np.ones((k, n))
        c = function(a, b)
        assert c.shape == (m, n) and c.dtype == a.dtype and np.array_equal(c, a @ b)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("in_b", [False, True])
def test_strassen_spreads_a_non_finite_value_no_further_than_numpy(bad, in_b):
    """One NaN or infinity in a 300 x 300 product poisons one row (or column) of C, as in
    numpy; Strassen's block sums would spread it over whole blocks (675 NaNs, not 300)."""
    rng = np.random.default_rng(4)
    a, b = random_operands(rng, 300, 300, 300, np.float64)
    (b if in_b else a)[17, 42] = bad
    c = SERIAL_ALGORITHMS["strassen"][0](a, b, cutoff=32)
    expected = a @ b
    assert np.isnan(c).sum() == np.isnan(expected).sum()
    assert np.array_equal(np.isnan(c), np.isnan(expected))
    assert np.array_equal(np.isinf(c), np.isinf(expected))
    finite = np.isfinite(expected)
    assert np.allclose(c[finite], expected[finite])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_strassen_of_large_finite_values_is_finite_where_numpy_is(dtype):
    """Entries above half the dtype's largest value overflowed Strassen's block sums:
    every element of C was NaN where numpy's product is finite."""
    a = np.full((256, 256), np.finfo(dtype).max / 1.5, dtype)
    b = np.full((256, 256), 1e-9, dtype)
    c = SERIAL_ALGORITHMS["strassen"][0](a, b, cutoff=32)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(dtype)
    assert np.isfinite(c).all() and np.allclose(c, expected, rtol=1e-5)


def test_registry_lists_each_tunable_parameter_with_its_default():
    for name, (function, params) in SERIAL_ALGORITHMS.items():
        signature = inspect.signature(function)
        tunables = {key: p.default for key, p in signature.parameters.items() if key not in ("a", "b")}
        assert tunables == params, name


def test_contiguous_operands_passes_good_arrays_through_without_copy():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 4), np.float32)
    a2, b2 = contiguous_operands(a, b)
    assert a2 is a and b2 is b


@pytest.mark.parametrize(
    "a, b",
    [
        (np.ones(3), np.ones((3, 2))),  # 1-D
        (np.ones((2, 3)), np.ones((3, 2, 1))),  # 3-D
        (np.ones((2, 3)), np.ones((4, 2))),  # inner dimensions differ
    ],
)
def test_contiguous_operands_rejects_shapes(a, b):
    with pytest.raises(ValueError):
        contiguous_operands(a, b)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.complex64, np.bool_])
def test_contiguous_operands_rejects_dtypes(dtype):
    with pytest.raises(TypeError, match="float32 and float64"):
        contiguous_operands(np.ones((2, 2), dtype), np.ones((2, 2), np.float32))


def test_contiguous_operands_rejects_mixed_precision():
    with pytest.raises(TypeError, match="float32 or both float64"):
        contiguous_operands(np.ones((2, 2), np.float32), np.ones((2, 2), np.float64))


@pytest.mark.parametrize("name, params", [
    ("blocked", {"block": 0}), ("blocked", {"block": -3}), ("blocked", {"block": 2.5}),
    ("divide_conquer", {"cutoff": 0}), ("strassen", {"cutoff": 0}),
])
def test_bad_tuning_parameters(name, params):
    function, _ = SERIAL_ALGORITHMS[name]
    with pytest.raises(ValueError, match=">= 1"):
        function(np.ones((2, 2)), np.ones((2, 2)), **params)


@pytest.mark.parametrize("m", [0, 2])
@pytest.mark.parametrize("name, params", [("blocked", {"block": 0}), ("strassen", {"cutoff": 1.5})])
def test_the_host_backend_checks_parameter_values_of_an_empty_product_too(m, name, params):
    """An empty product runs no algorithm, yet its parameters are checked as a non-empty
    one's are (gemm's promise; the OpenCL backend does): a bad value passed unnoticed."""
    import portgemm

    with pytest.raises(ValueError, match=">= 1"):
        portgemm.matmul(np.ones((m, 3)), np.ones((3, 2)), backend="host",
                        variant=f"serial-{name}", params=params)
