"""Shared fixtures: the OpenCL devices present that can build a kernel, and a reference."""

from __future__ import annotations

import functools
import threading

import numpy as np
import pytest

import portgemm
from portgemm.families import REGISTRY
from portgemm.runtime import Queue
from portgemm.verify import reference, relative_error, tolerance

TRIVIAL_KERNEL = "__kernel void probe(__global float *x) { x[get_global_id(0)] = 1.0f; }"


@functools.lru_cache(maxsize=None)
def device_status() -> tuple:
    """(device, reason-or-None) for every device: None when it builds a trivial kernel."""
    status = []
    for device in portgemm.get_devices():
        try:
            Queue.for_device(device).program(TRIVIAL_KERNEL)
            status.append((device, None))
        except portgemm.BuildError as exc:
            status.append((device, exc.first_error or str(exc)))
    return tuple(status)


def usable_devices() -> list:
    return [d for d, reason in device_status() if reason is None]


def device_params():
    """pytest params over every device present; those that cannot build are skipped."""
    params = [pytest.param(d, id=d.filter_string,
                           marks=[pytest.mark.skip(reason=f"{d.description}: {reason}")]
                           if reason else [])
              for d, reason in device_status()]
    return params or [pytest.param(None, marks=pytest.mark.skip(reason="no OpenCL device"))]


def assert_close(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    ref = reference(a, b)
    assert c.shape == ref.shape
    assert c.dtype == a.dtype
    assert not np.isnan(c).any(), "unwritten (poisoned) elements remain"
    err = relative_error(c, ref)
    assert err <= tolerance(a.dtype, a.shape[1]), f"relative error {err:.2e}"


def refuses(device, variant, a, b):
    """True when ``device`` cannot run the variant's defaults for these operands, after
    checking that the call says so (a ParameterError naming the reason), as a driver
    known to miscompile a kernel does (docs/known-issues.md)."""
    impl = REGISTRY[variant]
    problems = impl.problems(impl.resolve(None), device, a.dtype.itemsize)
    if problems:
        with pytest.raises(portgemm.ParameterError, match="cannot run"):
            portgemm.gemm(a, b, device=device, variant=variant)
    return bool(problems)


def held_elsewhere(lock) -> bool:
    """Whether another thread than this one would wait for ``lock`` now."""
    taken = []

    def try_lock():
        if lock.acquire(blocking=False):
            taken.append(True)
            lock.release()

    other = threading.Thread(target=try_lock)
    other.start()
    other.join()
    return not taken


@pytest.fixture(params=device_params())
def device(request):
    return request.param


@pytest.fixture(scope="session")
def any_device():
    devices = usable_devices()
    if not devices:
        pytest.skip("no OpenCL device can build kernels here")
    return devices[0]
