"""Selector logic on fabricated device lists (no OpenCL needed)."""

import dataclasses

import numpy as np
import pytest

import portgemm
from portgemm import DeviceNotFoundError, select_device
from portgemm.runtime import select_devices
from portgemm.runtime.device import Device


def fake(name, platform, vendor, kind, index, version=""):
    return Device(name=name, vendor=vendor, platform=platform, type=kind, index=index,
                  compute_units=4, max_work_group_size=1024, max_work_item_sizes=(1024,) * 3,
                  local_mem_size=65536, global_mem_size=2**33, max_mem_alloc_size=2**31,
                  has_fp64=True, driver_version="1.0", opencl_version="OpenCL 3.0",
                  platform_version=version)


INTEL = fake("Xeon", "Intel(R) OpenCL", "Intel(R) Corporation", "cpu", 0)
POCL = fake("pthread-Xeon", "Portable Computing Language", "GenuineIntel", "cpu", 1,
            "OpenCL 3.0 PoCL 3.0")
H100 = fake("NVIDIA H100", "NVIDIA CUDA", "NVIDIA Corporation", "gpu", 0)
ARC = fake("Intel Arc A770", "Intel(R) OpenCL Graphics", "Intel(R) Corporation", "gpu", 1)
ALL = [POCL, INTEL, H100, ARC]


@pytest.mark.parametrize("spec, expected", [
    ("default", H100), (None, H100), ("gpu", H100), ("cpu", POCL), ("opencl:gpu:1", ARC),
    ("opencl:cpu:1", INTEL), ("gpu:1", ARC), ("opencl:gpu", H100), ("opencl:2", H100),
    ("opencl", POCL), ("*:gpu:1", ARC), ("nvidia", H100), ("NVIDIA", H100), ("arc", ARC),
    ("pocl", POCL), ("intel", INTEL), ("accelerator,cpu", POCL), ("fpga, h100", H100),
    ("opencl:gpu:5,cpu:1", INTEL),
])
def test_string_specs(spec, expected, monkeypatch):
    monkeypatch.delenv("PORTGEMM_DEVICE", raising=False)
    assert select_device(spec, ALL) == expected


def test_default_prefers_vendor_driver_over_pocl_on_cpus(monkeypatch):
    monkeypatch.delenv("PORTGEMM_DEVICE", raising=False)
    assert select_device(None, [POCL, INTEL]) == INTEL
    assert select_device(None, [POCL]) == POCL


def test_environment_variable(monkeypatch):
    monkeypatch.setenv("PORTGEMM_DEVICE", "opencl:gpu:1")
    assert select_device(None, ALL) == ARC
    assert select_device("cpu", ALL) == POCL  # an explicit spec wins over the variable


def test_callable_highest_score_wins_negative_rejects():
    assert select_device(lambda d: d.local_mem_size if d.type == "gpu" else -1, ALL) == H100
    assert select_device(lambda d: 5 if "Arc" in d.name else 1, ALL) == ARC
    with pytest.raises(DeviceNotFoundError):
        select_device(lambda d: -1, ALL)


@pytest.mark.parametrize("score", [lambda d: "x", lambda d: 1j, lambda d: np.array([1, 2])])
def test_a_score_that_is_no_number_is_named(score):
    with pytest.raises(TypeError, match="returns a number"):
        select_device(score, ALL)


def test_get_devices_takes_no_selector():
    """get_devices("gpu") took the string for refresh=True and listed every device."""
    with pytest.raises(TypeError):
        portgemm.get_devices("gpu")


def test_device_object_passes_through():
    assert select_device(ARC, ALL) is ARC


def test_a_dpex_device_is_refused_by_name():
    """A dpex Device (its handle a dpctl.SyclDevice) was returned as it is and failed in
    pyopencl with "std::bad_cast"."""
    sycl_handle = type("SyclDevice", (), {"__module__": "dpctl._sycl_device"})()
    sycl = dataclasses.replace(INTEL, handle=sycl_handle)
    with pytest.raises(portgemm.ParameterError, match="dpex backend's SYCL device"):
        select_device(sycl, ALL)


@pytest.mark.parametrize("spec", ["opencl:gpu:2", "level_zero:gpu:0", "amd", "cpu:gpu",
                                  "accelerator", "gpu:0:opencl"])
def test_no_match_names_spec_and_lists_devices(spec):
    with pytest.raises(LookupError) as info:
        select_device(spec, ALL)
    message = str(info.value)
    assert repr(spec) in message and "opencl:gpu:0" in message and "NVIDIA H100" in message


def test_filter_strings():
    assert [d.filter_string for d in ALL] == ["opencl:cpu:1", "opencl:cpu:0", "opencl:gpu:0",
                                               "opencl:gpu:1"]


def test_select_devices_all_and_list():
    assert select_devices("all", ALL) == ALL
    assert select_devices("gpu,cpu,nvidia", ALL) == [H100, POCL]
