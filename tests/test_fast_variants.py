"""The local-memory variants, ``local`` and ``xgemm``: right for any shape, layout and valid
parameters, and clear errors for invalid ones.

Runs on every OpenCL device that can build a trivial kernel (others are skipped with the
reason, see conftest.py). Each check poisons C with NaN, so an element the kernel never
writes fails the test.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import portgemm
from portgemm.auto.shallow import cpu_tile, gpu_tile
from portgemm.families import get_variant
from portgemm.families.xgemm import (CPU_DEFAULTS, GPU_DEFAULTS, PORTABLE_DEFAULTS,
                                     local_elements)

from conftest import assert_close

# Edge cases: 1, primes, one past a power of two.
DIMS = st.sampled_from([1, 2, 3, 7, 31, 67, 127, 129, 257])
ORDERS = st.sampled_from(["CC", "CF", "FC", "FF"])
FAST = settings(max_examples=10, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

XGEMM_PARAMS = {
    "gpu-preset": GPU_DEFAULTS,   # VW=4 VWM=4 VWN=2 PAD=1 DOUBLE_BUFFER=1, 8x8 a work-item
    "cpu-preset": CPU_DEFAULTS,   # VW=1 VWM=VWN=1 PAD=0 DOUBLE_BUFFER=0, 4x4 a work-item
    "portable": PORTABLE_DEFAULTS,  # the class defaults
    "small-vw2": dict(MWG=32, NWG=32, KWG=8, MDIMC=8, NDIMC=8, VW=2, VWM=2, VWN=1, PAD=1,
                      DOUBLE_BUFFER=0, KUNROLL=2, WARPN=8),
    "vw8-thin": dict(MWG=16, NWG=64, KWG=32, MDIMC=4, NDIMC=16, VW=8, VWM=1, VWN=2, PAD=0,
                     DOUBLE_BUFFER=1, KUNROLL=4, WARPN=16),
    "vwm8": dict(MWG=64, NWG=32, KWG=16, MDIMC=8, NDIMC=8, VW=4, VWM=8, VWN=4, PAD=1,
                 DOUBLE_BUFFER=1, KUNROLL=2, WARPN=4),
    "tall-wg-vw1": dict(MWG=64, NWG=16, KWG=4, MDIMC=16, NDIMC=4, VW=1, VWM=4, VWN=2, PAD=0,
                        DOUBLE_BUFFER=0, KUNROLL=1, WARPN=2),
    "swizzle3": dict(MWG=32, NWG=32, KWG=8, MDIMC=8, NDIMC=8, VW=2, VWM=2, VWN=1, PAD=1,
                     DOUBLE_BUFFER=0, KUNROLL=2, WARPN=8, SWIZZLE=3),  # bands of 3 rows
    # asynchronous copies (cp.async on NVIDIA, the same pipeline with plain copies here):
    # A transposed element by element, B's padded rows in pieces of 2; two buffers
    "async2": dict(GPU_DEFAULTS, DOUBLE_BUFFER=0, ASYNC_STAGES=2),
    # A and B straight, pieces of 4; three buffers, requests two slabs ahead
    "async3-straight": dict(MWG=32, NWG=64, KWG=16, MDIMC=8, NDIMC=8, VW=4, VWM=1, VWN=4,
                            PAD=0, DOUBLE_BUFFER=0, KUNROLL=4, WARPN=8, ASYNC_STAGES=3),
}
LOCAL_PARAMS = {
    "default": None,
    "1x1": dict(wg_y=4, wg_x=4, tile_y=1, tile_x=1, tile_k=1),
    "2x4": dict(wg_y=8, wg_x=16, tile_y=2, tile_x=4, tile_k=8),
    "8x2-deep": dict(wg_y=16, wg_x=8, tile_y=8, tile_x=2, tile_k=32),
}
# (M, N, K, orders of A and B)
SHAPES = [(1, 1, 1, "CC"), (2, 3, 7, "FF"), (67, 129, 31, "CF"), (129, 67, 257, "FC"),
          (127, 257, 3, "CC")]


def operands(m, n, k, orders, dtype, seed):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.standard_normal((m, k)), dtype=dtype, order=orders[0])
    b = np.asarray(rng.standard_normal((k, n)), dtype=dtype, order=orders[1])
    return a, b


def run_checked(device, variant, params, m, n, k, orders, dtype=np.float32, seed=0):
    a, b = operands(m, n, k, orders, dtype, seed)
    result = portgemm.gemm(a, b, device=device, variant=variant, params=params,
                           poison=np.nan)
    assert_close(result.c, a, b)
    return result


def lighter_on_cpus(device, params):
    """On devices other than GPUs, build unrolled-by-16 presets with KUNROLL = 2: the same
    code, less unrolled (Intel's CPU compiler spends ~10 s on each fully unrolled build).
    test_xgemm_exact_tiles builds the GPU preset as it is."""
    if device.type != "gpu" and params.get("KUNROLL", 1) > 2:
        return dict(params, KUNROLL=2)
    return params


def fits(device, params, itemsize=4) -> bool:
    impl = get_variant("xgemm")
    return not impl.problems(impl.resolve(params), device, itemsize)


def check_default_fits(device, variant, itemsize=4):
    """What a call with no parameters runs (xgemm: the device type's preset) must fit."""
    try:
        get_variant(variant).check(None, device, itemsize)
    except portgemm.ParameterError as exc:
        pytest.skip(f"{variant}'s defaults do not fit {device.description}: {exc}")


# --- random shapes with the default parameters ----------------------------------------
@pytest.mark.parametrize("variant", ["local", "xgemm"])
@FAST
@given(m=DIMS, n=DIMS, k=DIMS, orders=ORDERS, seed=st.integers(0, 2**16))
def test_defaults_random_shapes(device, variant, m, n, k, orders, seed):
    check_default_fits(device, variant)
    run_checked(device, variant, None, m, n, k, orders, seed=seed)


@pytest.mark.parametrize("variant", ["local", "xgemm"])
def test_defaults_float64(device, variant):
    if not device.has_fp64:
        pytest.skip("device has no float64")
    check_default_fits(device, variant, 8)
    for m, n, k, orders in SHAPES[:4]:
        run_checked(device, variant, None, m, n, k, orders, dtype=np.float64)


# --- non-default valid parameters --------------------------------------------------------
@pytest.mark.parametrize("name", list(XGEMM_PARAMS))
def test_xgemm_params(device, name):
    params = lighter_on_cpus(device, XGEMM_PARAMS[name])
    impl = get_variant("xgemm")
    problems = impl.problems(impl.resolve(params), device)
    if problems:
        pytest.skip(f"{name} does not fit {device.description}: {problems}")
    for m, n, k, orders in SHAPES:
        run_checked(device, "xgemm", params, m, n, k, orders)


@pytest.mark.parametrize("name", ["gpu-preset", "cpu-preset", "vwm8", "async2"])
def test_xgemm_params_float64(device, name):
    if not device.has_fp64:
        pytest.skip("device has no float64")
    params = lighter_on_cpus(device, XGEMM_PARAMS[name])
    impl = get_variant("xgemm")
    if impl.problems(impl.resolve(params), device, 8):
        pytest.skip(f"{name} does not fit {device.description} in float64")
    for m, n, k, orders in (SHAPES[2], SHAPES[3]):
        run_checked(device, "xgemm", params, m, n, k, orders, dtype=np.float64)


@pytest.mark.parametrize("name", list(LOCAL_PARAMS))
def test_local_params(device, name):
    params = LOCAL_PARAMS[name]
    for m, n, k, orders in SHAPES:
        run_checked(device, "local", params, m, n, k, orders)


@pytest.mark.parametrize("tile_x, vw", [(8, 8), (48, 16), (12, 4), (6, 2)])
def test_vec_tile_without_a_width_takes_the_widest_that_divides_it(device, tile_x, vw):
    """The shared --tile RxC runs vec in the widest vectors that fit (8x8: vectors of 8)."""
    assert get_variant("vec").resolve({"tile_y": 4, "tile_x": tile_x})["vw"] == vw
    for m, n, k, orders in SHAPES[1:4]:  # edges in every direction, both layouts
        run_checked(device, "vec", {"tile_y": 4, "tile_x": tile_x}, m, n, k, orders)


@pytest.mark.parametrize("split, packed", [(2, 0), (7, 1), (300, 1), (300, 0)])
def test_vec_split_along_k(device, split, packed):
    """vec in layers along K (more layers than steps where K < 300: those write zeros),
    B packed or in place, every layout; the layers' sum is in order, so bit for bit the
    same C every run."""
    params = {"tile_y": 4, "tile_x": 16, "vw": 8, "PACKED": packed, "KSPLIT": split}
    for m, n, k, orders in SHAPES + [(33, 40, 1031, "FC")]:
        first = run_checked(device, "vec", params, m, n, k, orders).c
        again = run_checked(device, "vec", params, m, n, k, orders).c
        assert np.array_equal(first, again)


@pytest.mark.parametrize("tile, dtype", [
    (gpu_tile(1, 4), np.float32), (gpu_tile(4, 4), np.float32), (gpu_tile(7, 4), np.float32),
    (gpu_tile(2, 8), np.float64), (gpu_tile(6, 8), np.float64),
    (cpu_tile(4), np.float32), (cpu_tile(8), np.float64)])
def test_vec_in_a_shallow_ks_tiles(device, tile, dtype):
    """The parameters a shallow K runs (auto.shallow: on a GPU rows of one 16-byte vector,
    on Intel's CPU runtime rows of 128 bytes) on awkward shapes in every layout: rows and
    columns past C's edges, rows not aligned to the vector (odd N), C poisoned."""
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("no float64 on this device")
    for m, n, k, orders in [(1, 1, 1, "CC"), (3, 5, 2, "FF"), (129, 67, 7, "CF"),
                            (67, 257, 33, "FC"), (513, 1025, 13, "CC")]:
        run_checked(device, "vec", tile, m, n, k, orders, dtype)


def test_xgemm_unaligned_leading_dimensions(device):
    """K and N not multiples of VW: the vector loads and stores take the unaligned path."""
    params = dict(GPU_DEFAULTS, MWG=64, NWG=64, MDIMC=8, NDIMC=8, WARPN=8, KUNROLL=1)
    for m, n, k, orders in [(65, 66, 130, "CC"), (66, 65, 130, "FF"), (3, 130, 65, "CF")]:
        run_checked(device, "xgemm", params, m, n, k, orders)


def test_xgemm_exact_tiles(device):
    """Shapes that are whole tiles, where no edge code runs, and the GPU preset exactly as
    it is (fully unrolled) on one layout, with edges too."""
    if fits(device, CPU_DEFAULTS):
        run_checked(device, "xgemm", CPU_DEFAULTS, 128, 128, 128, "CF")
    for m, n, k in [(128, 256, 32), (129, 67, 257)]:
        run_checked(device, "xgemm", GPU_DEFAULTS, m, n, k, "CC")


def test_xgemm_defaults_follow_the_device(device):
    """No parameters: the device type's preset where it fits, else the portable defaults,
    which fit any device with 256 work-items and 32 KB of local memory, float64 too."""
    impl = get_variant("xgemm")
    assert impl.resolve(None) == PORTABLE_DEFAULTS
    preset = impl.preset(device)
    assert preset == (GPU_DEFAULTS if device.type == "gpu" else CPU_DEFAULTS)
    for itemsize in (4, 8):
        expected = preset if fits(device, preset, itemsize) else PORTABLE_DEFAULTS
        assert impl.check(None, device, itemsize) == expected
        assert impl.check({}, device, itemsize) == expected
    assert impl.local_mem_bytes(PORTABLE_DEFAULTS, 8) <= 32 * 1024
    assert PORTABLE_DEFAULTS["MDIMC"] * PORTABLE_DEFAULTS["NDIMC"] <= 256
    # Parameters given, even one, start from the portable defaults.
    assert impl.check({"KUNROLL": 2}, device)["MWG"] == PORTABLE_DEFAULTS["MWG"]


# --- invalid parameters (each a change to the GPU preset) -------------------------------
@pytest.mark.parametrize("bad, named", [
    (dict(MWG=100), "MWG"),                      # not a multiple of MDIMC * VWM
    (dict(NWG=128, NDIMC=16, VWN=16), "VWN"),    # not a vector width
    (dict(VW=3), "VW"),
    (dict(VW=8, KWG=4, KUNROLL=4), "VW"),        # VW does not divide KWG
    (dict(MWG=16, NWG=16, KWG=8, VW=4, VWM=1, VWN=1), "evenly"),  # 32 vectors, 256 items
    (dict(KUNROLL=3), "KUNROLL"),
    (dict(WARPN=3), "WARPN"),
    (dict(WARPN=32), "WARPN"),                   # does not divide NDIMC = 16
    (dict(MDIMC=2, MWG=8, WARPN=4), "WARPN"),    # 8-row patches on a 2-row grid
    (dict(PAD=2), "PAD"),
    (dict(DOUBLE_BUFFER=-1), "DOUBLE_BUFFER"),
    (dict(DOUBLE_BUFFER=True), "DOUBLE_BUFFER"),
    (dict(DOUBLE_BUFFER=0, ASYNC_STAGES=1), "ASYNC_STAGES"),
    (dict(ASYNC_STAGES=2), "ASYNC_STAGES"),      # with DOUBLE_BUFFER = 1
    (dict(ASYNC_STAGES=-2), "ASYNC_STAGES"),
    (dict(MWG=256, NWG=256, MDIMC=8, NDIMC=8, VWM=1, VWN=1, WARPN=8), "values"),
    (dict(TILE=4), "no parameter TILE"),
])
def test_xgemm_invalid_params(any_device, bad, named):
    a = np.ones((8, 8), np.float32)
    params = bad if "TILE" in bad else dict(GPU_DEFAULTS, **bad)
    with pytest.raises(portgemm.ParameterError, match=named):
        portgemm.gemm(a, a, device=any_device, variant="xgemm", params=params)


@pytest.mark.parametrize("bad, named", [
    (dict(tile_y=0), "tile_y"),
    (dict(tile_y=32, tile_x=32), "private values"),
    (dict(wg_y=2.5), "wg_y"),
])
def test_local_invalid_params(any_device, bad, named):
    a = np.ones((8, 8), np.float32)
    with pytest.raises(portgemm.ParameterError, match=named):
        portgemm.gemm(a, a, device=any_device, variant="local", params=bad)


def test_xgemm_takes_numpy_integers_as_ints():
    """tile_y and tile_x as numpy integers are a work-item's rows and columns, as ints
    are (they were taken as the group's: an 8 x 8 tile of C where 64 x 64 was asked)."""
    impl = get_variant("xgemm")
    common = {"wg_y": 8, "wg_x": 8, "WARPN": 8}
    as_numpy = impl.resolve({**common, "tile_y": np.int64(8), "tile_x": np.int32(8)})
    assert as_numpy == impl.resolve({**common, "tile_y": 8, "tile_x": 8})
    assert (as_numpy["MWG"], as_numpy["NWG"]) == (64, 64)


def test_device_limits_are_named(any_device):
    """Valid parameters beyond the device's local memory or work-group size are refused
    before anything is built, naming the limit."""
    a = np.ones((8, 8), np.float32)
    impl = get_variant("xgemm")
    for kwg, dim in [(512, 32), (2048, 64)]:
        too_much_local = dict(MWG=256, NWG=256, KWG=kwg, MDIMC=dim, NDIMC=dim, VW=4, VWM=1,
                              VWN=1, PAD=0, DOUBLE_BUFFER=1, KUNROLL=4, WARPN=32)
        if impl.local_mem_bytes(impl.resolve(too_much_local), 4) > any_device.local_mem_size:
            with pytest.raises(portgemm.ParameterError, match="local_mem_size"):
                portgemm.gemm(a, a, device=any_device, variant="xgemm", params=too_much_local)
            break
    else:
        pytest.fail(f"no test configuration exceeds local_mem_size "
                    f"{any_device.local_mem_size}")
    side = 1
    while side * side <= any_device.max_work_group_size:
        side *= 2
    too_wide = dict(wg_y=side, wg_x=side, tile_y=1, tile_x=1, tile_k=1)
    with pytest.raises(portgemm.ParameterError, match="max_work_group_size"):
        portgemm.gemm(a, a, device=any_device, variant="local", params=too_wide)


def test_local_memory_formula_matches_kernel(any_device):
    """The bytes xgemm.py reports are what the built kernel declares."""
    import pyopencl as cl

    from portgemm.backends.opencl import build_options
    from portgemm.runtime import Queue

    impl = get_variant("xgemm")
    for params in (dict(GPU_DEFAULTS, KUNROLL=1), CPU_DEFAULTS, XGEMM_PARAMS["vwm8"]):
        resolved = impl.resolve(params)
        if not fits(any_device, resolved):
            continue
        for a_colmajor in (False, True):
            options = build_options(impl, resolved, np.dtype(np.float32), a_colmajor, False)
            kernel = Queue.for_device(any_device).kernel(impl.source, "gemm", options)
            declared = kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE,
                                                  any_device.handle)
            expected = local_elements(resolved, a_colmajor) * 4
            assert expected <= declared <= expected + 1024  # a runtime may add a little
            assert expected <= impl.local_mem_bytes(resolved, 4)


def test_a_wrong_kernel_would_fail(any_device):
    """The checks can fail: an unwritten element (NaN poison) or a wrong value is caught."""
    a, b = operands(5, 4, 3, "CC", np.float32, 0)
    good = portgemm.gemm(a, b, device=any_device, variant="xgemm", poison=np.nan).c
    for broken in (np.where(np.arange(20).reshape(5, 4) == 7, np.nan, good),
                   good + np.float32(1e-3) * np.abs(good).max()):
        with pytest.raises(AssertionError):
            assert_close(broken.astype(np.float32), a, b)
