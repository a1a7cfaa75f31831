"""The panel family: right for any shape, layout and valid parameters on every device,
packed or not; its plan's three launches; clear errors for invalid parameters; and
``auto`` taking it on CPU runtimes that vectorise across work-items. Also vec with B
packed by the same kernel (kernels_cl/pack.cl).

Each check poisons C with NaN, so an element the kernels never write fails the test.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import portgemm
from portgemm.auto.compiler import compiler_kind
from portgemm.families import get_variant

from conftest import assert_close

DIMS = st.sampled_from([1, 2, 3, 7, 31, 67, 127, 129, 257])
ORDERS = st.sampled_from(["CC", "CF", "FC", "FF"])
FAST = settings(max_examples=10, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

PARAMS = {
    "default": None,
    "unpacked": dict(PACKED=0, PACK_A=0),
    "a-packed": dict(PACKED=0, PACK_A=1),
    "b-packed": dict(PACKED=1, PACK_A=0),
    # panels of K shorter than K, groups of rows shorter than M, a narrow vector
    "short-panels": dict(tile_y=4, tile_x=2, wg_x=8, KC=5, MB=8),
    "unpacked-short": dict(tile_y=6, tile_x=4, wg_x=4, KC=3, MB=12, PACKED=0, PACK_A=0),
    "a-packed-short": dict(tile_y=6, tile_x=4, wg_x=4, KC=3, MB=12, PACKED=0, PACK_A=1),
    # auto's tiles at a shallow K (packing.SHALLOW_RUNS): 16 and 32 vectors a work-item
    "runs-16": dict(tile_y=4, tile_x=16),
    "runs-32": dict(tile_y=2, tile_x=32),
}
# (M, N, K, orders of A and B)
SHAPES = [(1, 1, 1, "CC"), (2, 3, 7, "FF"), (67, 129, 31, "CF"), (129, 67, 257, "FC"),
          (127, 257, 3, "CC"), (9, 50, 600, "CC")]


def run_checked(device, params, m, n, k, orders, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.standard_normal((m, k)), dtype=dtype, order=orders[0])
    b = np.asarray(rng.standard_normal((k, n)), dtype=dtype, order=orders[1])
    result = portgemm.gemm(a, b, device=device, variant="panel", params=params,
                           poison=np.nan)
    assert_close(result.c, a, b)
    return result


@pytest.mark.parametrize("name", list(PARAMS))
def test_panel_params(device, name):
    for m, n, k, orders in SHAPES:
        run_checked(device, PARAMS[name], m, n, k, orders)


@pytest.mark.parametrize("name", ["default", "unpacked-short", "runs-32"])
def test_panel_float64(device, name):
    if not device.has_fp64:
        pytest.skip("device has no float64")
    for m, n, k, orders in SHAPES[:5]:
        run_checked(device, PARAMS[name], m, n, k, orders, dtype=np.float64)


@FAST
@given(m=DIMS, n=DIMS, k=DIMS, orders=ORDERS, packed=st.sampled_from([0, 1]),
       pack_a=st.sampled_from([0, 1]), seed=st.integers(0, 2**16))
def test_panel_random_shapes(device, m, n, k, orders, packed, pack_a, seed):
    run_checked(device, dict(tile_y=4, tile_x=3, wg_x=8, KC=16, MB=16, PACKED=packed,
                             PACK_A=pack_a), m, n, k, orders, seed=seed)


def test_packed_and_unpacked_agree(any_device):
    """The packed panels hold A and B's values in the order the unpacked kernel reads
    them: the four ways (A, B, both or neither packed) give the same C, to the last bit."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((45, 300), dtype=np.float32)
    b = rng.standard_normal((300, 70), dtype=np.float32)
    shape = dict(tile_y=4, tile_x=2, wg_x=8, KC=64, MB=16)
    results = [portgemm.matmul(a, b, device=any_device, variant="panel",
                               params=dict(shape, PACKED=packed, PACK_A=pack_a))
               for packed in (0, 1) for pack_a in (0, 1)]
    for other in results[1:]:
        assert np.array_equal(results[0], other)


def test_packed_plan_is_three_launches():
    panel = get_variant("panel")
    params = panel.resolve(dict(tile_y=8, tile_x=3, wg_x=16, KC=256, MB=256, PACK_A=1))
    plan = panel.plan(1000, 100, 513, params)
    assert [s.kernel for s in plan.steps] == ["pack_b", "pack_a", "gemm"]
    assert [s.source_file for s in plan.steps] == ["pack.cl", "pack.cl", ""]
    assert dict(plan.steps[0].defines)["PACK_WIDTH"] == 48
    assert dict(plan.steps[1].defines)["PACK_HEIGHT"] == 8
    # B in 3 panels of 48 columns, A in 125 panels of 8 rows, each over all of K
    assert plan.workspace == (3 * 48 * 513, 125 * 8 * 513)
    assert plan.steps[0].ndrange.global_range.sizes == (3, 3 * 16)     # K in 3 slabs of 256
    assert plan.steps[1].ndrange.global_range.sizes == (3, 125 * 16)
    assert plan.steps[2].ndrange.global_range.sizes == (4, 3 * 16)     # 1000 rows, 256 a group
    assert plan.steps[2].args == ("M", "N", "K", "W1", "lda", "W0", 48, "C", "ldc")
    unpacked = panel.plan(1000, 100, 513, dict(params, PACKED=0, PACK_A=0))
    assert [s.kernel for s in unpacked.steps] == ["gemm"] and not unpacked.workspace
    # one operand packed: one packing launch, the other operand read where it lies
    b_only = panel.plan(1000, 100, 513, dict(params, PACK_A=0))
    assert [s.kernel for s in b_only.steps] == ["pack_b", "gemm"]
    assert b_only.steps[1].args == ("M", "N", "K", "A", "lda", "W0", 48, "C", "ldc")
    a_only = panel.plan(1000, 100, 513, dict(params, PACKED=0))
    assert [s.kernel for s in a_only.steps] == ["pack_a", "gemm"]
    assert a_only.steps[1].args == ("M", "N", "K", "W0", "lda", "B", "ldb", "C", "ldc")
    assert a_only.workspace == (125 * 8 * 513,)


def test_packed_panels_past_the_index_limit_are_refused():
    panel = get_variant("panel")
    params = panel.resolve(None)
    with pytest.raises(portgemm.ParameterError, match="PACKED=0"):
        panel.plan(8, 50000, 50000, params)
    with pytest.raises(portgemm.ParameterError, match="PACK_A=0"):
        panel.plan(50000, 8, 50000, dict(params, PACKED=0, PACK_A=1))


@pytest.mark.parametrize("bad, named", [
    (dict(MB=100), "MB must be a multiple of tile_y"),
    (dict(PACKED=2), "PACKED"),
    (dict(tile_y=0), "tile_y"),
    (dict(tile_y=32, tile_x=16), "private values"),
    (dict(wg_y=2), "no parameter wg_y"),
])
def test_panel_invalid_params(any_device, bad, named):
    a = np.ones((8, 8), np.float32)
    with pytest.raises(portgemm.ParameterError, match=named):
        portgemm.gemm(a, a, device=any_device, variant="panel", params=bad)


def test_auto_takes_panel_on_work_item_vectorising_cpus(any_device, monkeypatch):
    """With no database, ordinary and deep-K shapes go to panel where the compiler
    vectorises across work-items (Intel's CPU runtime), with a group of the device's
    native width; on other devices to their own families."""
    from portgemm.auto.choice import choose

    monkeypatch.setenv("PORTGEMM_TUNING_DB", "none")
    portgemm.clear_caches()
    kind = compiler_kind(any_device)
    for shape in [(300, 300, 300), (2048, 2048, 2048), (1024, 1024, 16384)]:
        choice = choose(any_device, *shape)
        if kind == "work-item-vectorising":
            assert choice.variant == "panel" and choice.source == "model"
            width = any_device.native_vector_width
            assert choice.params["wg_x"] == (width if width in (4, 8, 16) else 8)
        else:
            assert choice.variant != "panel"


# --- vec with B packed -------------------------------------------------------------------
VEC_PACKED = {
    "wide": dict(tile_y=8, tile_x=48, vw=16, wg_y=2, wg_x=4, PACKED=1),
    "narrow": dict(tile_y=3, tile_x=8, vw=4, wg_y=1, wg_x=2, PACKED=1),
}


@pytest.mark.parametrize("name", list(VEC_PACKED))
def test_vec_packed(device, name):
    for m, n, k, orders in SHAPES:
        rng = np.random.default_rng(m + n + k)
        a = np.asarray(rng.standard_normal((m, k)), dtype=np.float32, order=orders[0])
        b = np.asarray(rng.standard_normal((k, n)), dtype=np.float32, order=orders[1])
        result = portgemm.gemm(a, b, device=device, variant="vec", params=VEC_PACKED[name],
                               poison=np.nan)
        assert_close(result.c, a, b)


def test_vec_packed_agrees_with_unpacked(any_device):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((50, 333), dtype=np.float32)
    b = rng.standard_normal((333, 100), dtype=np.float32)  # 100: a ragged last panel
    params = dict(tile_y=4, tile_x=32, vw=16, wg_y=1, wg_x=2)
    packed = portgemm.matmul(a, b, device=any_device, variant="vec",
                             params=dict(params, PACKED=1))
    unpacked = portgemm.matmul(a, b, device=any_device, variant="vec", params=params)
    assert np.array_equal(packed, unpacked)


@pytest.mark.parametrize("by_rows", [False, True], ids=["pack_b", "pack_b_rows"])
@pytest.mark.parametrize("b_order", ["C", "F"])
@pytest.mark.parametrize("n, k", [(1, 1), (48, 16), (5 * 48 + 7, 37), (9 * 48, 300),
                                  (300 * 48 + 5, 3)])
def test_b_packed_into_panels(device, by_rows, b_order, n, k):
    """Both kernels that pack B write every value of every panel (the workspace poisoned
    with NaN first): B's columns in panels of 48, K-major, zeros past N; pack_b_rows'
    panels past a work-item's four and steps past its 16 included, and pack_b's groups
    along a row-major B's rows whether a block of steps has more panels than a group
    copies steps (300 of them) or fewer."""
    import pyopencl as cl

    from portgemm.families.launch import kernel_options
    from portgemm.families.packing import pack_b_step
    from portgemm.families.sources import read_kernel
    from portgemm.runtime.queue import Queue

    queue = Queue.for_device(device)
    b = np.asarray(np.random.default_rng(n + k).standard_normal((k, n)), np.float32,
                   order=b_order)
    step, elements = pack_b_step(n, k, 48, "W0", by_rows=by_rows)
    options = kernel_options(step.defines, np.dtype(np.float32), False, b_order == "F")
    kernel = queue.kernel(read_kernel(step.source_file), step.kernel, options)
    poisoned = np.full(elements, np.nan, np.float32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    source = cl.Buffer(queue.context, flags, hostbuf=np.ravel(b, order="K"))
    panels = cl.Buffer(queue.context, flags, hostbuf=poisoned)
    arguments = {"N": np.int32(n), "K": np.int32(k), "B": source,
                 "ldb": np.int32(n if b_order == "C" else k), "W0": panels}
    queue.submit(kernel, step.ndrange, *(arguments[name] for name in step.args)).wait()
    cl.enqueue_copy(queue.cl_queue, poisoned, panels)
    padded = np.zeros((k, elements // k), np.float32)
    padded[:, :n] = b
    expected = padded.reshape(k, -1, 48).transpose(1, 0, 2).ravel()
    assert np.array_equal(poisoned, expected)


def test_step_times_are_the_plan_launches(device):
    """GemmResult.step_ms: one event time for each launch of the plan (pack, the split
    product, the sum of its slices), adding up to kernel_ms."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((40, 300), dtype=np.float32)
    b = rng.standard_normal((300, 70), dtype=np.float32)
    params = dict(tile_y=4, tile_x=16, vw=8, wg_y=1, wg_x=2, PACKED=1, KSPLIT=2)
    result = portgemm.gemm(a, b, device=device, variant="vec", params=params)
    plan = get_variant("vec").plan(40, 70, 300, result.params)
    assert len(result.step_ms) == len(plan.steps) == 3
    assert all(ms > 0 for ms in result.step_ms)
    assert sum(result.step_ms) == pytest.approx(result.kernel_ms)


def test_vec_packed_plan():
    vec = get_variant("vec")
    params = vec.resolve(dict(tile_y=8, tile_x=48, vw=16, wg_y=2, wg_x=4, PACKED=1))
    plan = vec.plan(100, 100, 700, params)
    assert [(s.kernel, s.source_file) for s in plan.steps] == [("pack_b_rows", "pack.cl"),
                                                               ("gemm", "")]
    assert plan.workspace == (3 * 48 * 700,)    # 100 columns in 3 panels of 48
    assert plan.steps[1].args[5:7] == ("W0", 48)  # B is the panels, ldb their width
    assert vec.plan(100, 100, 700, dict(params, PACKED=0)).steps[0].kernel == "gemm"


def guarded(shape, rng):
    """A float32 row-major array whose last value ends where a page no one may read
    begins: a kernel that reads past it crashes the process."""
    import ctypes
    import mmap

    nbytes = int(np.prod(shape)) * 4
    size = -(-nbytes // mmap.PAGESIZE) * mmap.PAGESIZE
    region = mmap.mmap(-1, size + mmap.PAGESIZE)
    start = ctypes.addressof(ctypes.c_char.from_buffer(region))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    assert libc.mprotect(start + size, mmap.PAGESIZE, 0) == 0, ctypes.get_errno()
    array = np.frombuffer(region, np.float32, int(np.prod(shape)), size - nbytes)
    array = array.reshape(shape)
    array[...] = rng.standard_normal(shape)
    return array, region


@pytest.mark.parametrize("m, n, k", [(9, 20, 1), (9, 20, 5), (13, 100, 37), (3, 1, 4),
                                     (8, 47, 64)])
def test_in_place_edge_reads_on_but_never_past_b(device, m, n, k):
    """B in place, row-major, its last group of columns partial: the group reads on past
    a row's end into the next rows (lanes at consecutive addresses), never past B's last
    value (a page no one may read follows it); C, poisoned first, is right."""
    from portgemm.backends.transfers import policy_for

    if policy_for(device) != "svm":
        pytest.skip("the kernels read host memory where it lies only through SVM")
    rng = np.random.default_rng([m, n, k])
    b, region = guarded((k, n), rng)
    a = rng.standard_normal((m, k)).astype(np.float32)
    params = {"tile_y": 4, "tile_x": 2, "wg_x": 16, "KC": 8, "PACKED": 0, "PACK_A": 0}
    result = portgemm.gemm(a, b, device=device, variant="panel", params=params,
                           poison=np.nan)
    assert_close(result.c, a, b)
    del b, result
    region.close()
