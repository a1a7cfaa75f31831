"""A program is built once per (device, source, options); a kernel is retrieved once."""

import dataclasses

import numpy as np

import portgemm
from portgemm.runtime import Queue


def test_second_matmul_builds_nothing(any_device):
    queue = Queue.for_device(any_device)
    a = np.ones((33, 17), np.float32)
    b = np.ones((17, 9), np.float32)
    portgemm.matmul(a, b, device=any_device, variant="inreg", params={"length": 5})
    builds = queue.builds
    kernels = len(queue._kernels)
    for _ in range(3):
        portgemm.matmul(a, b, device=any_device, variant="inreg", params={"length": 5})
    assert queue.builds == builds
    assert len(queue._kernels) == kernels


def test_new_options_build_once_more(any_device):
    queue = Queue.for_device(any_device)
    a = np.ones((5, 5), np.float32)
    before = queue.builds
    portgemm.matmul(a, a, device=any_device, variant="inreg", params={"length": 7})
    portgemm.matmul(a, a, device=any_device, variant="inreg", params={"length": 7})
    assert queue.builds == before + 1


def test_queue_is_shared_per_device(any_device):
    assert Queue.for_device(any_device) is Queue.for_device(any_device.filter_string)



def test_inline_ptx_is_announced_to_nvidia_compilers_only(any_device):
    """Kernels may use inline PTX (xgemm's asynchronous copies) only where PORTGEMM_PTX
    says the compiler is NVIDIA's."""
    real = Queue.for_device(any_device)
    if "nvidia" not in any_device.vendor.lower():
        assert real.device_options == ()
    for vendor, options in (("NVIDIA Corporation", ("-DPORTGEMM_PTX=1",)),
                            ("Intel(R) Corporation", ()), ("GenuineIntel", ()),
                            ("Advanced Micro Devices, Inc.", ())):
        queue = object.__new__(Queue)
        queue.device = dataclasses.replace(any_device, vendor=vendor, handle=None)
        assert queue.device_options == options, vendor
        assert queue.device.takes_ptx == bool(options)
    # with the driver's compute capability, kernels learn it too (mma.cl's sm_90 shape)
    from types import SimpleNamespace

    queue = object.__new__(Queue)
    queue.device = dataclasses.replace(any_device, vendor="NVIDIA Corporation", handle=(
        SimpleNamespace(compute_capability_major_nv=9, compute_capability_minor_nv=0)))
    assert queue.device_options == ("-DPORTGEMM_PTX=1", "-DPORTGEMM_SM=90")
