"""Every registered variant on every device present is right for any shape and layout."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import portgemm
from portgemm.families import REGISTRY, get_variant

from conftest import assert_close, refuses


DIMS = st.one_of(st.sampled_from([1, 2, 3, 5, 7, 13, 17, 31, 61, 67, 97, 127, 128, 131]),
                 st.integers(1, 160))
FAST = settings(max_examples=12, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("variant", list(REGISTRY))
@FAST
@given(m=DIMS, n=DIMS, k=DIMS, seed=st.integers(0, 2**16))
def test_random_shapes_float32(device, variant, m, n, k, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    if refuses(device, variant, a, b):
        return
    result = portgemm.gemm(a, b, device=device, variant=variant, poison=np.nan)
    assert_close(result.c, a, b)
    assert result.kernel_ms > 0 and result.wall_ms >= result.kernel_ms * 0.5


@pytest.mark.parametrize("variant", list(REGISTRY))
@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 131, 1), (67, 1, 43), (2, 3, 257)])
def test_float64(device, variant, shape):
    if not device.has_fp64:
        pytest.skip("device has no float64")
    m, n, k = shape
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    if refuses(device, variant, a, b):
        return
    c = portgemm.gemm(a, b, device=device, variant=variant, poison=np.nan).c
    assert_close(c, a, b)


LAYOUTS = {
    "C": lambda x: np.ascontiguousarray(x),
    "F": lambda x: np.asfortranarray(x),
    "transposed-view": lambda x: np.ascontiguousarray(x.T).T,
    "strided-view": lambda x: np.repeat(x, 2, axis=1)[:, ::2],
}


@pytest.mark.parametrize("variant", list(REGISTRY))
@pytest.mark.parametrize("layout_a", list(LAYOUTS))
@pytest.mark.parametrize("layout_b", list(LAYOUTS))
def test_layouts(device, variant, layout_a, layout_b):
    rng = np.random.default_rng(2)
    a64, b64 = rng.standard_normal((37, 29)), rng.standard_normal((29, 41))
    a = LAYOUTS[layout_a](a64.astype(np.float32))
    b = LAYOUTS[layout_b](b64.astype(np.float32))
    if refuses(device, variant, a, b):
        return
    c = portgemm.gemm(a, b, device=device, variant=variant, poison=np.nan).c
    assert c.flags.c_contiguous
    assert_close(c, np.ascontiguousarray(a), np.ascontiguousarray(b))


def unaligned(x: np.ndarray) -> np.ndarray:
    """A copy of ``x`` one byte past an aligned address (numpy's flags.aligned False: a
    record's field, a buffer read at an offset)."""
    memory = np.empty(x.nbytes + 1, np.uint8)
    y = np.frombuffer(memory.data, x.dtype, x.size, offset=1).reshape(x.shape)
    y[...] = x
    return y


@pytest.mark.parametrize("variant", list(REGISTRY))
def test_operands_at_any_address(device, variant):
    """A, B and C where no vector load or store of the kernels' would be aligned: read
    where they lie (Intel's SVM, host pointers) or copied, C right either way."""
    rng = np.random.default_rng(4)
    a = unaligned(rng.standard_normal((37, 53)).astype(np.float32))
    b = unaligned(rng.standard_normal((53, 29)).astype(np.float32))
    assert not (a.flags.aligned or b.flags.aligned)
    if refuses(device, variant, a, b):
        return
    out = unaligned(np.full((37, 29), np.nan, np.float32))
    c = portgemm.gemm(a, b, device=device, variant=variant, out=out).c
    assert c is out
    assert_close(c, np.array(a), np.array(b))


@pytest.mark.parametrize("variant, params", [
    ("naive", {"wg_y": 1, "wg_x": 64}),
    ("tiled", {"tile_y": 8, "tile_x": 8}),
    ("tiled", {"tile_y": 1, "tile_x": 16, "wg_y": 16, "wg_x": 4}),
    ("tiled", {"tile_y": 3, "tile_x": 5}),
    ("inreg", {"tile_y": 8, "tile_x": 8, "length": 8}),
    ("inreg", {"tile_y": 2, "tile_x": 4, "length": 3}),
])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 13, 5), (129, 67, 131), (64, 64, 64)])
def test_non_default_params(device, variant, params, shape):
    m, n, k = shape
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    result = portgemm.gemm(a, b, device=device, variant=variant, params=params, poison=np.nan)
    assert_close(result.c, a, b)
    assert all(result.params[key] == value for key, value in params.items())


def test_matmul_returns_new_array(any_device):
    a = np.ones((4, 3), np.float32)
    b = np.ones((3, 5), np.float32)
    c = portgemm.matmul(a, b, device=any_device)
    assert isinstance(c, np.ndarray) and c.shape == (4, 5) and c.dtype == np.float32
    assert np.all(c == 3)
    assert c is not portgemm.matmul(a, b, device=any_device)


def test_variants_lists_registered_names(any_device):
    assert {"naive", "tiled", "inreg"} <= set(portgemm.variants(any_device))
    assert set(portgemm.variants()) == set(REGISTRY)


@pytest.mark.parametrize("variant, params", [
    ("panel", {"KC": 2**31}), ("panel", {"MB": 2**31, "tile_y": 1}),
    ("xgemm", {"SWIZZLE": 2**31}), ("tallskinny", {"GS": 2**40})])
def test_values_past_the_kernels_int_are_refused(variant, params):
    """A ParameterError, not a BuildError from the -D literal ('min' is ambiguous)."""
    with pytest.raises(portgemm.ParameterError, match="at most 2147483647"):
        get_variant(variant).resolve(params)
    largest = next(iter(params))
    get_variant(variant).resolve({**params, largest: 2**31 - 1})


@pytest.mark.parametrize("variant", ["xgemm", "mma", "wgmma", "vec", "wide"])
def test_a_split_past_the_slabs_of_k_runs_as_many_layers_as_slabs(device, variant):
    """Layers past K's slabs would only write zeros (their workspace past the device's
    max_mem_alloc_size, a raw INVALID_BUFFER_SIZE, at KSPLIT 4000): the split is cut to
    the slabs, and the result says so."""
    impl = get_variant(variant)
    if impl.problems(impl.resolve({"KSPLIT": 4000}), device, 4):
        pytest.skip(f"{variant}'s defaults do not run on {device.description}")
    m, n, k = 70, 50, 40
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    result = portgemm.gemm(a, b, device=device, variant=variant, params={"KSPLIT": 4000},
                           poison=np.nan)
    assert_close(result.c, a, b)
    slabs = -(-k // (impl.block(result.params) or (1, 1, 1))[2])
    assert result.params["KSPLIT"] == slabs
    assert impl.plan(m, n, k, result.params).workspace[0] == slabs * m * n
    if impl.block(result.params) is None:  # slabs of one step
        # 10 steps in 6 layers: runs of 2 steps, and the sixth layer's starts past K
        assert impl.effective(3, 3, 10, impl.resolve({"KSPLIT": 6}))["KSPLIT"] == 5


def test_a_workspace_past_the_device_limit_is_refused(any_device):
    """Split-K's partial products past max_mem_alloc_size: a ParameterError naming the
    limit before anything runs, not the driver's INVALID_BUFFER_SIZE."""
    m = n = 2048
    k = any_device.max_mem_alloc_size // (m * n * 4) + 1  # one layer a step of K
    a, b = np.ones((m, k), np.float32), np.ones((k, n), np.float32)
    with pytest.raises(portgemm.ParameterError, match="workspace W0.*max_mem_alloc_size"):
        portgemm.gemm(a, b, device=any_device, variant="vec", params={"KSPLIT": k})


@pytest.mark.parametrize("variant, params, shape", [
    ("tallskinny", {"tile_y": 16, "tile_x": 16, "GS": 4096, "BS": 32, "TG": 4}, (3, 2, 5000)),
    ("tallskinny", {"GS": 64, "BS": 64, "FUSE": 1}, (4, 4, 50)),
    ("phvm", {"GS": 4096, "BS": 64}, (3, 2, 1000)),
    ("wide", {"tile_y": 8, "KSPLIT": 64}, (3, 300, 10)),
    ("vec", {"KSPLIT": 64}, (3, 9, 3)),
    ("xgemm", {"KSPLIT": 64}, (40, 40, 100)),
])
def test_the_parameters_a_plan_runs_plan_the_same(variant, params, shape):
    """Variant.effective (what GemmResult.params reports) plans what the asked parameters
    plan, and is where the cuts stop."""
    impl = get_variant(variant)
    asked = impl.resolve(params)
    ran = impl.effective(*shape, asked)
    assert ran != asked
    assert impl.plan(*shape, ran) == impl.plan(*shape, asked)
    assert impl.effective(*shape, ran) == ran
    impl.resolve(ran)  # still a valid parameter set
