"""The numba-dpex backend (optional extra ``dpex``).

Everything but the first two tests needs the pinned numba-dpex stack (its own venv:
``.ci/dpex-venv.sh``); without numba_dpex installed they are skipped. Installed but not
working, they fail: the dpex CI run is there to notice a broken stack.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys

import numpy as np
import pytest

from portgemm.backends import dpex as backend
from portgemm.backends.dpex import devices as dpex_devices
from portgemm.backends.dpex import run as dpex_run
from portgemm.backends.dpex import stack as dpex_stack
from portgemm.result import GemmResult
from portgemm.errors import BackendUnavailableError, DeviceNotFoundError, ParameterError
from portgemm.runtime.ndrange import NDRange, Range
from portgemm.verify import reference, relative_error, tolerance

INSTALL = 'pip install "portgemm[dpex]"'
DEVICE = "opencl:cpu"

needs_dpex = pytest.mark.skipif(importlib.util.find_spec("numba_dpex") is None,
                                reason=f"numba-dpex is not installed ({INSTALL})")


def ones(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


# --- without the stack (runs in every environment) ----------------------------------

def test_missing_stack_raises_naming_the_install_command(monkeypatch):
    monkeypatch.setattr(dpex_stack, "_stack", None)
    monkeypatch.setattr(dpex_stack, "_stack_failure", None)
    monkeypatch.setitem(sys.modules, "numba_dpex", None)  # `import numba_dpex` now fails
    with pytest.raises(BackendUnavailableError) as info:
        backend.run_dpex(ones(3, 2), ones(2, 4))
    message = str(info.value)
    assert INSTALL in message
    assert "3.11" in message
    assert isinstance(info.value, ImportError)
    assert not backend.dpex_available()
    with pytest.raises(BackendUnavailableError, match="portgemm\\[dpex\\]"):  # again: cached
        backend.run_dpex(ones(3, 2), ones(2, 4))


def test_kernel_source_takes_partial_params_with_the_variants_defaults():
    """Partial params raised KeyError, and inreg's length was read as 1, not its 4."""
    assert "K in steps of 4" in backend.python_kernel_source("inreg", {"tile_y": 2})
    assert backend.python_kernel_source("inreg", {}) == backend.python_kernel_source(
        "inreg", {"tile_y": 4, "tile_x": 4, "length": 4})
    assert "gemm_local" in backend.python_kernel_source("local")
    with pytest.raises(ParameterError, match="no parameter tile_q"):
        backend.python_kernel_source("tiled", {"tile_q": 2})


def test_wall_time_fallback_is_labelled():
    kernel_ms, timing, notes = dpex_run._kernel_time(None, False, 1.5)
    assert (kernel_ms, timing) == (1.5, "wall")
    assert "wall time" in notes[0]


# --- with the stack -------------------------------------------------------------------

@pytest.fixture(scope="module")
def device():
    if importlib.util.find_spec("numba_dpex") is None:
        pytest.skip(f"numba-dpex is not installed ({INSTALL})")
    assert backend.dpex_available(), dpex_stack._stack_failure
    return backend.describe(backend.sycl_device(DEVICE))


# Shapes with 1s, primes and sizes off every tile and work-group multiple.
EDGE_SHAPES = [(1, 1, 1), (1, 13, 7), (17, 1, 3), (2, 3, 1), (31, 37, 41), (97, 1, 61),
               (67, 71, 2), (64, 64, 64)]
NON_DEFAULT = {
    "naive": {"wg_y": 4, "wg_x": 8},
    "tiled": {"tile_y": 3, "tile_x": 2, "wg_y": 4, "wg_x": 8},
    "inreg": {"tile_y": 2, "tile_x": 5, "length": 3},
    "local": {"wg_y": 4, "wg_x": 8, "tile_y": 3, "tile_x": 2, "tile_k": 5},
}


def random_shapes(count: int, seed: int) -> list[tuple[int, int, int]]:
    rng = np.random.default_rng(seed)
    return [tuple(int(v) for v in rng.integers(1, 90, size=3)) for _ in range(count)]


def check(result, a, b):
    assert isinstance(result, GemmResult)
    assert result.c.shape == (a.shape[0], b.shape[1]) and result.c.dtype == a.dtype
    assert not np.isnan(result.c).any(), "unwritten (poisoned) elements remain"
    err = relative_error(result.c, reference(a, b))
    assert err <= tolerance(a.dtype, a.shape[1]), f"relative error {err:.2e}"


@needs_dpex
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("variant", backend.VARIANTS)
def test_variant_matches_float64_reference(device, variant, dtype):
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip(f"{device.description} has no fp64")
    rng = np.random.default_rng(7)
    for m, n, k in EDGE_SHAPES + random_shapes(4, seed=len(variant)):
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
        check(backend.run_dpex(a, b, device=DEVICE, variant=variant, poison=np.nan), a, b)


@needs_dpex
@pytest.mark.parametrize("variant", backend.VARIANTS)
def test_non_default_params_and_edges(device, variant):
    rng = np.random.default_rng(11)
    for m, n, k in [(1, 1, 1), (23, 29, 19), (5, 41, 11)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        result = backend.run_dpex(a, b, device=DEVICE, variant=variant,
                                  params=NON_DEFAULT[variant], poison=np.nan)
        check(result, a, b)
        assert NON_DEFAULT[variant].items() <= result.params.items()


@needs_dpex
def test_column_major_and_strided_inputs(device):
    rng = np.random.default_rng(3)
    a = np.asfortranarray(rng.standard_normal((19, 23)))
    b = rng.standard_normal((46, 31))[::2, ::3]  # a view, neither C nor F order
    check(backend.run_dpex(a, b, device=DEVICE, variant="local", poison=np.nan), a, b)


@needs_dpex
def test_result_reports_device_params_and_event_time(device):
    result = backend.run_dpex(ones(8, 8), ones(8, 8), device=DEVICE, variant="inreg")
    assert result.backend == "dpex" and result.variant == "inreg"
    assert result.device.filter_string == "opencl:cpu:0"
    assert result.params == {"tile_y": 4, "tile_x": 4, "wg_y": 8, "wg_x": 16, "length": 4}
    assert result.timing == "event" and result.notes == ()
    assert 0 < result.kernel_ms <= result.wall_ms
    np.testing.assert_array_equal(result.c, np.full((8, 8), 8, np.float32))


@needs_dpex
def test_portgemm_ranges_keep_sycl_order(device):
    stack = backend.load_stack()
    converted = backend.to_dpex_range(NDRange((6, 8), (3, 4)))
    assert tuple(converted.global_range) == (6, 8)
    assert tuple(converted.local_range) == (3, 4)
    assert tuple(backend.to_dpex_range(Range(5, 7))) == (5, 7)

    # Dimension 0 is the row, the last dimension varies fastest: no reversal anywhere.
    def ids(item, out):
        out[item.get_id(0), item.get_id(1)] = item.get_id(0) * 100 + item.get_id(1)

    queue = dpex_devices.queue_for(backend.sycl_device(DEVICE)).queue
    out = stack.dpt.zeros((6, 8), dtype=np.int64, sycl_queue=queue)
    stack.dpex.call_kernel(stack.dpex.kernel(ids), backend.to_dpex_range(Range(6, 8)), out)
    rows, cols = np.indices((6, 8))
    np.testing.assert_array_equal(stack.dpt.asnumpy(out), rows * 100 + cols)
    with pytest.raises(TypeError, match="Range or NDRange"):
        backend.to_dpex_range((6, 8))


@needs_dpex
def test_opencl_backend_still_works_in_the_same_process(device):
    """The SYCL libraries loaded for dpex must not break pyopencl: C++ exceptions in it
    aborted the process when libur_loader's libc++abi symbols were made global, and a
    global libOpenCL.so.1 took pyopencl's calls away from its own loader (hiding PoCL)."""
    import ctypes

    import portgemm

    a, b = np.random.default_rng(5).standard_normal((2, 31, 31)).astype(np.float32)
    backend.run_dpex(a, b, device=DEVICE)
    assert not hasattr(ctypes.CDLL(None), "clGetPlatformIDs"), "an ICD loader went global"
    check(portgemm.gemm(a, b, device="intel", variant="tiled", poison=np.nan), a, b)


@needs_dpex
def test_kernel_source_is_readable_python(device):
    source = backend.python_kernel_source("inreg", {"tile_y": 2, "tile_x": 3, "length": 2})
    compile(source, "<test>", "exec")
    assert "acc1_2 += a1_1 * b1_2" in source
    assert "group_barrier(group)" in backend.python_kernel_source(
        "local", {"wg_y": 2, "wg_x": 2, "tile_y": 1, "tile_x": 1, "tile_k": 4})


# --- bad input raises the documented error ---------------------------------------------

@needs_dpex
@pytest.mark.parametrize("a, b", [
    (ones(3, 4), ones(5, 2)),     # inner dimensions differ
    (ones(3), ones(3, 2)),        # 1-D
    (ones(2, 3, 4), ones(4, 2)),  # 3-D
])
def test_bad_shapes_raise_value_error(device, a, b):
    with pytest.raises(ValueError):
        backend.run_dpex(a, b, device=DEVICE)


@needs_dpex
@pytest.mark.parametrize("m, k, n", [(3, 0, 2), (0, 3, 2), (3, 2, 0)])
def test_empty_operands_follow_numpy(device, m, k, n):
    """As for every backend, portgemm.gemm answers an empty product as numpy does,
    without a kernel."""
    import portgemm

    result = portgemm.gemm(ones(m, k), ones(k, n), backend="dpex", device=DEVICE)
    assert result.c.shape == (m, n) and not result.c.any() and result.kernel_ms == 0
    assert isinstance(result, backend.DpexResult)  # a plain GemmResult had no .timing
    assert result.timing == "event" and result.notes == ()


@needs_dpex
@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.complex64, bool])
def test_unsupported_dtype_raises_type_error(device, dtype):
    with pytest.raises(TypeError, match="float32 and float64"):
        backend.run_dpex(ones(2, 2, dtype=dtype), ones(2, 2, dtype=dtype), device=DEVICE)


@needs_dpex
def test_mixed_dtypes_raise_type_error(device):
    with pytest.raises(TypeError, match="both"):
        backend.run_dpex(ones(2, 2), ones(2, 2, dtype=np.float64), device=DEVICE)


@needs_dpex
def test_float64_on_a_device_without_fp64_raises_type_error(device, monkeypatch):
    no_fp64 = dataclasses.replace(device, has_fp64=False)
    monkeypatch.setattr(dpex_run, "describe", lambda sycl_device: no_fp64)
    with pytest.raises(TypeError, match="no float64 support"):
        backend.run_dpex(ones(2, 2, dtype=np.float64), ones(2, 2, dtype=np.float64),
                         device=DEVICE)


@needs_dpex
def test_unknown_variant_names_the_dpex_variants(device):
    with pytest.raises(ParameterError, match="naive, tiled, inreg, local"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=DEVICE, variant="xgemm")


@needs_dpex
@pytest.mark.parametrize("variant, params, match", [
    ("tiled", {"tile_q": 4}, "no parameter tile_q"),
    ("tiled", {"tile_y": 0}, "positive integer"),
    ("inreg", {"length": 2.5}, "positive integer"),
    ("local", {"tile_k": True}, "positive integer"),
    ("tiled", {"tile_y": 64, "tile_x": 64}, "registers"),
])
def test_bad_params_raise_parameter_error(device, variant, params, match):
    with pytest.raises(ParameterError, match=match):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=DEVICE, variant=variant,
                         params=params)


@needs_dpex
def test_work_group_beyond_device_limit_names_it(device):
    side = int(device.max_work_group_size ** 0.5) + 8
    with pytest.raises(ParameterError, match="max_work_group_size"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=DEVICE, variant="naive",
                         params={"wg_y": side, "wg_x": side})


@needs_dpex
def test_local_memory_beyond_device_limit_names_it(device):
    # (16*8 + 16*8) rows/columns x 64 deep x 4 bytes = 64 KiB
    params = {"wg_y": 16, "wg_x": 16, "tile_y": 8, "tile_x": 8, "tile_k": 64}
    if 256 * 64 * 4 <= device.local_mem_size:
        pytest.skip(f"{device.description} has {device.local_mem_size} bytes of local memory")
    with pytest.raises(ParameterError, match="local_mem_size"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=DEVICE, variant="local",
                         params=params)


@needs_dpex
def test_unknown_device_lists_the_devices_present(device):
    with pytest.raises(DeviceNotFoundError, match="opencl:cpu:0"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device="level_zero:accelerator:7")
    with pytest.raises(TypeError, match="filter string"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=3)


@needs_dpex
def test_sub_device_is_refused_with_parameter_error(device):
    """dpctl's own TypeError ("This SyclDevice is not a root device") came through."""
    root = backend.sycl_device(DEVICE)
    try:
        sub = root.create_sub_devices(partition=1)[0]
    except Exception as exc:  # a device that cannot be partitioned
        pytest.skip(f"no sub-device of {DEVICE}: {exc}")
    with pytest.raises(ParameterError, match="sub-device"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=sub)


@needs_dpex
def test_sycl_usm_arrays_raise_type_error(device):
    """A usm_ndarray became an object array: "a has dtype object; supported ..."."""
    a_dev = backend.load_stack().dpt.asarray(ones(2, 2))
    with pytest.raises(TypeError, match="numpy first"):
        backend.run_dpex(a_dev, ones(2, 2), device=DEVICE)


@needs_dpex
@pytest.mark.parametrize("poison", ["x", [1.0], 1 + 2j])
def test_poison_that_is_no_real_number_is_refused(device, poison):
    """dpt.full raised pybind's RuntimeError for "x" and took [1.0] and 1+2j silently."""
    with pytest.raises(ParameterError, match="poison must be a real number"):
        backend.run_dpex(ones(2, 2), ones(2, 2), device=DEVICE, poison=poison)


# --- out, times, pickling, threads ------------------------------------------------------

@needs_dpex
def test_out_may_be_a_pyopencl_array(device):
    """np.copyto refused it: "copyto() argument 1 must be numpy.ndarray, not Array"."""
    import portgemm

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = portgemm.to_device(np.zeros((2, 2), np.float32), device="intel")
    result = portgemm.gemm(a, a.T, backend="dpex", device=DEVICE, out=out)
    assert result.c is out
    np.testing.assert_array_equal(portgemm.to_host(out), a @ a.T)


@needs_dpex
def test_wall_time_covers_the_copy_into_out(device, monkeypatch):
    """The copy into a C-contiguous out ran after wall_ms was taken."""
    import time

    import portgemm

    copy_into = dpex_run.copy_into

    def slow_copy_into(out, c, *, wait):
        time.sleep(0.2)
        return copy_into(out, c, wait=wait)

    monkeypatch.setattr(dpex_run, "copy_into", slow_copy_into)
    out = np.empty((4, 4), np.float32)
    result = portgemm.gemm(ones(4, 4), ones(4, 4), backend="dpex", device=DEVICE, out=out)
    assert result.c is out and (out == 4).all()
    assert result.wall_ms >= 200


@needs_dpex
def test_results_and_devices_pickle(device):
    """Both failed: "no default __reduce__ due to non-trivial __cinit__" (dpctl's device
    and event). A device pickles as its filter string, selected again on loading."""
    import pickle

    result = backend.run_dpex(ones(3, 3), ones(3, 3), device=DEVICE)
    again = pickle.loads(pickle.dumps(result))
    assert isinstance(again, backend.DpexResult) and again.sycl_event is None
    assert again.device == result.device and again.device.handle is not None
    np.testing.assert_array_equal(again.c, result.c)
    assert result.sycl_event is not None  # the original keeps its own


@needs_dpex
def test_the_opencl_backend_refuses_a_dpex_device(device):
    """It went to pyopencl as it was: "RuntimeError: std::bad_cast"."""
    import portgemm

    with pytest.raises(ParameterError, match="dpex backend's SYCL device"):
        portgemm.gemm(ones(2, 2), ones(2, 2), device=device)


THREADS_SCRIPT = """
import threading
import numpy as np
from portgemm.backends.dpex import run_dpex
a = np.ones((33, 21), np.float32); b = np.ones((21, 17), np.float32)
run_dpex(a, b, variant="naive")
failed = []
def work():
    try:
        for _ in range(5):
            assert np.allclose(run_dpex(a, b, variant="naive").c, 21)
    except Exception as exc:
        failed.append(exc)
threads = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
print("finished", failed)
"""


@needs_dpex
def test_calls_from_threads_take_turns(device):
    """Threads' calls on one device's queue hung for good (4 threads: 3 runs of 3): one
    thread's upload waited on the queue holding the GIL, behind numba-dpex's keep-alive
    host task of another call, which needs it. A hang holds the GIL, so no join timeout
    can see it: the calls run in a child process with a deadline."""
    import os
    import subprocess
    from pathlib import Path

    root = str(Path(backend.__file__).parents[3])  # the portgemm under test
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-c", THREADS_SCRIPT], env=env, timeout=60,
                              capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        pytest.fail("calls from four threads hung")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "finished []" in done.stdout
