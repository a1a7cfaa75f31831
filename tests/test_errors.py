"""Bad input raises the documented error, never a wrong result."""

import numpy as np
import pytest

import portgemm
from portgemm.backends import opencl
from portgemm.runtime import Queue

F32 = np.float32


def ones(*shape, dtype=F32):
    return np.ones(shape, dtype)


@pytest.mark.parametrize("a, b", [
    (ones(3, 4), ones(5, 2)),       # inner dimensions differ
    (ones(3), ones(3, 2)),          # 1-D
    (ones(2, 3, 4), ones(4, 2)),    # 3-D
])
def test_bad_shapes_raise_value_error(any_device, a, b):
    """gemm takes two matrices (matmul takes vectors and stacks too: test_stacks.py)."""
    with pytest.raises(ValueError, match="2-D|do not align"):
        portgemm.gemm(a, b, device=any_device)


def test_empty_operands_follow_numpy(any_device):
    """(3, 0) @ (0, 2) is a 3 x 2 zero matrix, as in numpy (tests/test_trust.py has more)."""
    c = portgemm.matmul(ones(3, 0), ones(0, 2), device=any_device)
    assert c.shape == (3, 2) and c.dtype == np.float32 and not c.any()


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.complex64, bool])
def test_unsupported_dtype_raises_type_error_naming_supported(any_device, dtype):
    with pytest.raises(TypeError, match="float32 and float64"):
        portgemm.matmul(ones(2, 2, dtype=dtype), ones(2, 2, dtype=dtype), device=any_device)


@pytest.mark.parametrize("stacked", [False, True])
def test_masked_arrays_raise_type_error(any_device, stacked):
    """A masked array's mask was dropped and the values under it multiplied as data."""
    shape = (2, 3, 3) if stacked else (3, 3)
    masked = np.ma.array(ones(*shape), mask=np.eye(3, dtype=bool) * np.ones(shape, bool))
    for a, b in ((masked, ones(*shape)), (ones(*shape), masked)):
        with pytest.raises(TypeError, match="masked"):
            portgemm.matmul(a, b, device=any_device)
    if not stacked:
        with pytest.raises(TypeError, match="masked"):
            portgemm.gemm(masked, ones(3, 3), device=any_device)


def test_sycl_usm_arrays_raise_type_error_saying_bring_them_to_numpy(any_device):
    """dpctl's usm_ndarray and dpnp arrays (told by their __sycl_usm_array_interface__)
    became object arrays: "a has dtype object; supported dtypes are ..."."""
    class UsmArray:  # as dpctl.tensor.usm_ndarray looks to numpy without dpctl
        __sycl_usm_array_interface__ = {"shape": (2, 2), "typestr": "<f4"}

    with pytest.raises(TypeError, match="numpy first"):
        portgemm.gemm(UsmArray(), ones(2, 2), device=any_device)


def test_a_matrix_subclass_gives_a_plain_array_of_the_product(any_device):
    """As documented (README): numpy's matmul keeps np.matrix, portgemm's gives ndarray."""
    a = np.matrix(np.arange(6, dtype=F32).reshape(2, 3))
    c = portgemm.matmul(a, a.T, device=any_device)
    assert type(c) is np.ndarray and np.array_equal(c, np.asarray(a) @ np.asarray(a).T)


def test_mixed_dtypes_raise_type_error(any_device):
    with pytest.raises(TypeError, match="both"):
        portgemm.matmul(ones(2, 2), ones(2, 2, dtype=np.float64), device=any_device)


@pytest.mark.parametrize("backend", ["opencl", "host"])
def test_out_that_is_no_array_is_a_type_error(any_device, backend):
    """As numpy's: an AttributeError ('list' object has no attribute 'shape') before."""
    a = np.ones((3, 3), np.float32)
    with pytest.raises(TypeError, match="out must be an array"):
        portgemm.matmul(a, a, out=[0], backend=backend,
                        device=any_device if backend == "opencl" else None)


def test_unknown_variant(any_device):
    with pytest.raises(portgemm.ParameterError, match="registered variants: .*naive"):
        portgemm.matmul(ones(2, 2), ones(2, 2), device=any_device, variant="magic")


@pytest.mark.parametrize("params, match", [
    ({"tile_q": 4}, "no parameter tile_q"),
    ({"tile_y": 0}, "positive integer"),
    ({"tile_y": 2.5}, "positive integer"),
    ({"tile_y": 64, "tile_x": 64}, "registers"),
])
def test_bad_params(any_device, params, match):
    with pytest.raises(ValueError, match=match):
        portgemm.matmul(ones(2, 2), ones(2, 2), device=any_device, variant="tiled",
                        params=params)


def test_work_group_beyond_device_limit_names_it(any_device):
    side = int(any_device.max_work_group_size ** 0.5) + 8
    with pytest.raises(portgemm.ParameterError, match="max_work_group_size"):
        portgemm.matmul(ones(2, 2), ones(2, 2), device=any_device, variant="naive",
                        params={"wg_y": side, "wg_x": side})


def test_params_with_auto_is_an_error(any_device):
    with pytest.raises(ValueError, match="named variant"):
        portgemm.matmul(ones(2, 2), ones(2, 2), device=any_device, params={"wg_x": 4})


def test_build_failure_carries_the_log(any_device):
    queue = Queue.for_device(any_device)
    with pytest.raises(portgemm.BuildError) as info:
        queue.program("__kernel void broken(__global float *x) { x[0] = undeclared_name; }")
    assert "undeclared_name" in info.value.log
    assert "undeclared_name" in str(info.value)


def refused_build(*args, **kwargs):
    raise portgemm.BuildError("refused for the test", "")


@pytest.mark.parametrize("stacked", [False, True])
def test_a_refused_build_queues_nothing(device, monkeypatch, stacked):
    """PoCL refuses to build on some CPUs. The poison fill of a numpy C was queued before
    the build, left pending when BuildError unwound, and PoCL then wrote into freed
    memory: heap corruption, the process killed. Now nothing is queued first."""
    queued = []
    monkeypatch.setattr(Queue, "kernel", refused_build)
    for name in ("fill", "copy", "map", "submit"):
        monkeypatch.setattr(Queue, name, lambda self, *a, _name=name, **k: queued.append(_name))
    out = np.full((2, 7, 9) if stacked else (7, 9), 5, F32)
    with pytest.raises(portgemm.BuildError):
        if stacked:  # one launch over the stack
            resolved = opencl.BACKEND.resolve(device, "naive", None, (7, 9, 9), out.dtype)
            opencl.BACKEND.run_stack(resolved, ones(2, 7, 9), ones(2, 9, 9), out=out,
                                     poison=np.nan)
        else:
            portgemm.gemm(ones(7, 9), ones(9, 9), device=device, variant="naive",
                          poison=np.nan, out=out)
    assert queued == []
    assert (out == 5).all()


def test_an_error_after_queuing_waits_for_what_was_queued(device, monkeypatch):
    """An error raised once commands are queued (here the launch) waits for them before
    it unwinds: they may read or write the caller's host memory."""
    finished = []

    def failing_submit(self, *args, **kwargs):
        raise RuntimeError("launch failed for the test")

    monkeypatch.setattr(Queue, "submit", failing_submit)
    original = Queue.finish
    monkeypatch.setattr(Queue, "finish", lambda self: finished.append(1) or original(self))
    with pytest.raises(RuntimeError, match="for the test"):
        portgemm.gemm(ones(7, 9), ones(9, 5), device=device, variant="naive", poison=np.nan)
    assert finished


def test_no_matching_device_lists_devices_present():
    with pytest.raises(portgemm.DeviceNotFoundError, match="devices present") as info:
        portgemm.select_device("opencl:accelerator:7")
    assert isinstance(info.value, LookupError)


@pytest.mark.parametrize("backend", ["opencl", "host"])
@pytest.mark.parametrize("poison", ["x", [1.0], 1 + 2j, True, 10 ** 400])
def test_poison_that_is_no_real_number_is_refused(any_device, backend, poison):
    """One check for every backend: dpex raised a RuntimeError for a string, and a list
    or a complex number was taken silently."""
    with pytest.raises(portgemm.ParameterError, match="poison must be a real number"):
        portgemm.gemm(ones(2, 2), ones(2, 2), poison=poison, backend=backend,
                      device=any_device if backend == "opencl" else None)


def test_host_backend_writes_a_device_array_out(any_device):
    """np.copyto refused a pyopencl array ("argument 1 must be numpy.ndarray")."""
    a = np.arange(6, dtype=F32).reshape(2, 3)
    out = portgemm.to_device(np.zeros((2, 2), F32), device=any_device)
    result = portgemm.gemm(a, a.T, backend="host", out=out)
    assert result.c is out
    np.testing.assert_array_equal(portgemm.to_host(out), a @ a.T)


def test_a_device_without_a_driver_handle_is_selected_again(any_device):
    """A Device made by hand (no handle), in a process with no queue of that device yet,
    reached pyopencl's Context and failed there with "std::bad_cast"; it is now this
    process's device of its filter string, as an unpickled one is (checked by name)."""
    import dataclasses

    from portgemm.runtime import Queue

    described = dataclasses.replace(any_device, handle=None)
    assert Queue(described).device.handle is not None  # a new queue, not the cached one
    c = portgemm.matmul(ones(4, 5), ones(5, 3), device=described)
    assert np.array_equal(c, np.full((4, 3), 5, F32))
    with pytest.raises(portgemm.DeviceNotFoundError, match="not Another"):
        Queue(dataclasses.replace(described, name="Another"))


def test_api_edges_raise_the_documented_errors(any_device):
    """Found by probing the public API: each was another error, or a wrong answer."""
    from portgemm import tune, verify
    from portgemm.runtime import pocl_target

    with pytest.raises(ValueError, match="shape"):  # broadcast: 0.0, "a perfect match"
        verify.relative_error(np.ones((1000, 3)), np.ones((1, 3)))
    for size in (1e-170, 1e160):  # norms squared them: 0.0 and NaN before
        ref = np.full((4, 4), size)
        assert verify.relative_error(2 * ref, ref) == pytest.approx(1.0)
        assert verify.relative_error(ref * (1 + 1e-3), ref) == pytest.approx(1e-3)
    with pytest.raises(ValueError, match=">= 1"):  # ZeroDivisionError in a model
        tune.choose(any_device, 0, 64, 64)
    with pytest.raises(TypeError, match="mapping"):  # AttributeError: no .items
        portgemm.gemm(ones(2, 2), ones(2, 2), device=any_device, params=[("tile_y", 4)])
    with pytest.raises(TypeError, match="mapping"):
        portgemm.matmul(ones(2, 2), ones(2, 2), device=any_device, params="tile_y=4")
    on_device = portgemm.to_device(ones(2, 2), device=any_device)
    with pytest.raises(TypeError, match="on a device already"):  # "object arrays"
        portgemm.to_device(on_device, device=any_device)
    scalar = portgemm.to_device(np.array(3, F32), device=any_device)
    assert scalar.shape == () and portgemm.to_host(scalar) == 3  # it came back as (1,)
    assert portgemm.empty_pinned((2, 2), None, device=any_device).dtype == np.float64
    if pocl_target.refusal(any_device):  # every build refused: none usable
        assert portgemm.variants(any_device) == []


def test_environment_mistakes_are_said_where_they_matter(any_device, monkeypatch, capsys):
    """PORTGEMM_TRANSFER=svn silently forced the slowest copies; a bad
    PORTGEMM_NUM_THREADS refused the single-threaded serial variants too; a bad
    PORTGEMM_DEVICE was a traceback from the experiments' command line."""
    from portgemm.backends import transfers
    from portgemm.experiments.__main__ import main as experiments_main

    monkeypatch.setenv("PORTGEMM_TRANSFER", "svn")
    with pytest.raises(portgemm.ParameterError, match="use one of svm, host_ptr"):
        transfers.policy_for(any_device)
    monkeypatch.delenv("PORTGEMM_TRANSFER")
    monkeypatch.setenv("PORTGEMM_NUM_THREADS", "two")
    c = portgemm.matmul(ones(2, 2), ones(2, 2), backend="host", variant="serial-ijk")
    assert np.array_equal(c, np.full((2, 2), 2, F32))
    monkeypatch.delenv("PORTGEMM_NUM_THREADS")
    monkeypatch.setenv("PORTGEMM_DEVICE", "nope")
    assert experiments_main(["run", "003-tile-sweep", "--quick", "--out", "."]) == 2
    assert "no device matches 'nope'" in capsys.readouterr().err


def test_small_checks_found_by_probing(any_device, monkeypatch):
    """parse_size(True) was 1 x 1 x 1 and 3.5 a TypeError from iteration; tolerance took
    float16 and complex; PORTGEMM_MPI_WAIT='' was refused and PORTGEMM_DEVICE=' ' matched
    nothing, where every other variable reads empty as unset."""
    from portgemm import verify
    from portgemm.distributed.transport import check_wait
    from portgemm.tune import parse_size

    for size in (True, 3.5, (2, 3.0, 4)):
        with pytest.raises(ValueError, match="of integers"):
            parse_size(size)
    for dtype in (np.float16, np.complex64):
        with pytest.raises(TypeError, match="float32 or float64"):
            verify.tolerance(dtype, 4)
    monkeypatch.setenv("PORTGEMM_MPI_WAIT", " ")
    assert check_wait() == "yield"
    monkeypatch.setenv("PORTGEMM_DEVICE", " ")
    assert portgemm.select_device() == portgemm.select_device("default")
