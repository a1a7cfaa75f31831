"""mma: warps of 16 x 8 x 8 tiles (PTX mma.sync on NVIDIA's FP64 tensor cores, the same
fragments with multiply-adds elsewhere): right for any shape, layout and valid tiling in
float64 and float32, and its local-memory figure is what the kernel declares.

On NVIDIA devices of compute capability 9.0 float64 runs the tensor-core instruction;
everywhere else the emulation, whose fragment layouts are those of the instruction
(bench/gpu/mma_probe.py checked them against the hardware).
"""

import numpy as np
import pytest

import portgemm
from portgemm.families import get_variant
from portgemm.families.mma import (MEDIUM_FLOAT64, WIDE_32_FLOAT32, WIDE_32_FLOAT64,
                                   tall_float64)

from conftest import assert_close, reference, relative_error

PARAMS = {
    "defaults": {},
    "h200-entry": {"WM": 2, "WN": 2, "MT": 2, "NT": 8},       # 64 x 128 tiles
    "square": {"WM": 2, "WN": 4, "MT": 4, "NT": 4},           # 128 x 128, 256 work-items
    "one-warp-deep": {"WM": 1, "WN": 1, "MT": 1, "NT": 2, "KS": 2, "PAD": 0, "SUMS": 2},
    "tall": {"WM": 4, "WN": 1, "MT": 1, "NT": 4, "KS": 2, "BUFFERS": 1},  # 64 x 32
    # float64's asynchronous copies (cp.async on NVIDIA, plain copies elsewhere)
    "async-h100-tile": {"WM": 1, "WN": 4, "MT": 4, "NT": 4, "ASYNC_STAGES": 3},
    "async-two-deep": {"WM": 2, "WN": 1, "MT": 1, "NT": 2, "KS": 2, "ASYNC_STAGES": 2},
    "async-four": {"WM": 1, "WN": 2, "MT": 2, "NT": 2, "PAD": 0, "ASYNC_STAGES": 4},
    # B's slabs by bulk copies (Hopper's TMA engine; one work-item's plain copies elsewhere)
    "bulk-h100-tile": {"WM": 1, "WN": 4, "MT": 4, "NT": 4, "ASYNC_STAGES": 3, "B_BULK": 1},
    "bulk-two-deep": {"WM": 2, "WN": 1, "MT": 1, "NT": 2, "KS": 2, "ASYNC_STAGES": 2,
                      "B_BULK": 1},
    "bulk-split": {"WM": 1, "WN": 4, "MT": 4, "NT": 4, "ASYNC_STAGES": 3, "B_BULK": 1,
                   "KSPLIT": 5},
    # split-K: layers whose run starts past a short K write zeros
    "split-k": {"WM": 2, "WN": 1, "MT": 1, "NT": 2, "KSPLIT": 3},
    "async-split": {"WM": 1, "WN": 4, "MT": 4, "NT": 4, "ASYNC_STAGES": 3, "KSPLIT": 5},
    "tall-32-preset-split": dict(tall_float64(32), KSPLIT=3),  # auto's 128 x 32 tile
    "tall-40-preset": tall_float64(40),  # an odd count of mma tiles across a warp
    "tall-56-preset-split": dict(tall_float64(56), KSPLIT=2),  # 48 KiB of slabs
    "medium-preset": MEDIUM_FLOAT64,  # auto's 64 x 96 tile
    "wide-32-preset-split": dict(WIDE_32_FLOAT64, KSPLIT=2),  # auto's 32 x 128 tile
    "wide-32-float32-preset-split": dict(WIDE_32_FLOAT32, KSPLIT=2),  # its float32 form
}
ASYNC = [name for name, params in PARAMS.items() if params.get("ASYNC_STAGES")]
# 1, primes, a K shorter than a slab, tiles exactly, a row of B shorter than a tile (even:
# the asynchronous copies take B's rows in 16-byte pieces up to its edge)
SHAPES = [(1, 1, 1), (17, 131, 257), (130, 129, 7), (64, 128, 64), (3, 6, 1000)]


def operands(m, n, k, order, dtype, seed=0):
    rng = np.random.default_rng([seed, m, n, k])
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    return (np.asfortranarray(a) if order[0] == "F" else a,
            np.asfortranarray(b) if order[1] == "F" else b)


def fits(device, params, itemsize):
    impl = get_variant("mma")
    problems = impl.problems(impl.resolve(params), device, itemsize)
    if problems:
        pytest.skip(f"does not fit {device.description}: {problems}")


@pytest.mark.parametrize("name, dtype", [(name, np.float64) for name in PARAMS] + [
    ("defaults", np.float32), ("one-warp-deep", np.float32), ("tall", np.float32),
    ("split-k", np.float32), ("wide-32-float32-preset-split", np.float32)])
def test_any_shape_and_layout(device, name, dtype):
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("device has no float64")
    fits(device, PARAMS[name], np.dtype(dtype).itemsize)
    for i, (m, n, k) in enumerate(SHAPES):
        order = ("CC", "FC", "CF", "FF", "CC")[i]
        a, b = operands(m, n, k, order, dtype)
        result = portgemm.gemm(a, b, device=device, variant="mma", params=PARAMS[name],
                               poison=np.nan)
        assert_close(result.c, a, b)


def test_asynchronous_copies_are_float64_only(any_device):
    """float32 splits each value into TF32 parts as it is staged, which a copy cannot:
    refused with the reason, before anything is built."""
    impl = get_variant("mma")
    params = impl.resolve(PARAMS["async-h100-tile"])
    assert any("ASYNC_STAGES needs float64" in p for p in impl.problems(params, any_device, 4))
    assert not any("ASYNC_STAGES" in p for p in impl.problems(params, any_device, 8))
    with pytest.raises(portgemm.ParameterError, match="ASYNC_STAGES 0, 2, 3 or 4"):
        impl.resolve({"ASYNC_STAGES": 5})
    for buffers in (3, 4):  # they ran, every slab read from the first: C wrong
        with pytest.raises(portgemm.ParameterError, match="BUFFERS must be 1 or 2"):
            impl.resolve({"BUFFERS": buffers})


BULK = [name for name, params in PARAMS.items() if params.get("B_BULK")]


@pytest.mark.parametrize("name", BULK)
def test_bulk_copies_of_b_beside_every_edge(device, name):
    """B_BULK moves B's slabs of a tile inside C, a slab inside K, by bulk copies; beside
    them in the same product run tiles at C's edges, a last slab past K, split K and a B
    whose rows are unaligned (an odd count of columns: its pieces instead). Right in every
    case, B row-major (the only order it copies in bulk)."""
    if not device.has_fp64:
        pytest.skip("device has no float64")
    fits(device, PARAMS[name], 8)
    for m, n, k in ((128, 256, 203), (130, 257, 67), (192, 384, 512), (64, 128, 5),
                    (128, 255, 64)):
        a, b = operands(m, n, k, "CC", np.float64)
        result = portgemm.gemm(a, b, device=device, variant="mma", params=PARAMS[name],
                               poison=np.nan)
        assert_close(result.c, a, b)


def test_bulk_copies_need_the_asynchronous_stages(any_device):
    with pytest.raises(portgemm.ParameterError, match="B_BULK must be 0 or 1"):
        get_variant("mma").resolve({"B_BULK": 1})
    with pytest.raises(portgemm.ParameterError, match="B_BULK must be 0 or 1"):
        get_variant("mma").resolve({"B_BULK": 2, "ASYNC_STAGES": 3})


def test_uneven_staging_is_refused(any_device):
    with pytest.raises(portgemm.ParameterError, match="stage each slab evenly"):
        get_variant("mma").resolve({"WM": 4, "WN": 4, "MT": 1, "NT": 1})


def test_local_memory_formula_matches_kernel(any_device):
    """The bytes mma.py reports are what the built kernel declares (off the PTX path the
    emulation's scratch is part of it)."""
    import pyopencl as cl

    from portgemm.backends.opencl import build_options
    from portgemm.runtime import Queue

    if any_device.takes_ptx:
        pytest.skip("on NVIDIA devices the kernel has no scratch: the figure is an upper bound")
    impl = get_variant("mma")
    dtypes = [np.dtype(np.float32)] + ([np.dtype(np.float64)] if any_device.has_fp64 else [])
    checked = set()
    for name, params in PARAMS.items():
        for dtype in dtypes:
            resolved = impl.resolve(params)
            if impl.problems(resolved, any_device, dtype.itemsize):
                continue
            options = build_options(impl, resolved, dtype, False, False)
            kernel = Queue.for_device(any_device).kernel(impl.source, "gemm", options)
            declared = kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE,
                                                  any_device.handle)
            expected = impl.local_mem_bytes(resolved, dtype.itemsize)
            assert expected <= declared <= expected + 1024  # a runtime may add a little
            checked.add(name)
    if any_device.has_fp64:
        assert set(ASYNC) <= checked


def test_the_tensor_core_path_needs_no_scratch(any_device):
    """On NVIDIA GPUs of compute capability 9.0 float64 runs mma.sync, which needs no
    scratch: a tiling too big for 48 KiB with the emulation's scratch fits there."""
    import dataclasses
    from types import SimpleNamespace

    impl = get_variant("mma")
    params = impl.resolve(PARAMS["h200-entry"])
    gpu = dataclasses.replace(any_device, vendor="NVIDIA Corporation", local_mem_size=49152,
                              max_work_group_size=1024, max_work_item_sizes=(1024, 1024, 64),
                              handle=None)
    hopper = dataclasses.replace(gpu, handle=SimpleNamespace(
        compute_capability_major_nv=9, compute_capability_minor_nv=0))
    ampere = dataclasses.replace(gpu, handle=SimpleNamespace(
        compute_capability_major_nv=8, compute_capability_minor_nv=0))
    assert impl.problems(params, hopper, 8) == []
    for device, itemsize in ((ampere, 8), (gpu, 8)):
        assert any("local memory" in p for p in impl.problems(params, device, itemsize))


def test_pocl5_is_refused(any_device):
    """PoCL 5.0 left columns of C unwritten in the emulated path, in tilings and layouts
    that changed from run to run: refused there with the reason, not on PoCL 3."""
    import dataclasses

    impl = get_variant("mma")
    pocl = dict(platform="Portable Computing Language", vendor="GenuineIntel", handle=None)
    for version, refused in (("5.0+debian", True), ("3.0", False)):
        device = dataclasses.replace(any_device, driver_version=version, **pocl)
        for params in PARAMS.values():
            problems = impl.problems(impl.resolve(params), device, 4)
            assert any("PoCL 5" in p for p in problems) == refused


def test_float32_is_as_accurate_as_a_float32_gemm(device):
    """float32 runs 3xTF32: the operands' high and low TF32 parts. Its error over a deep K
    stays near that of a plain float32 kernel (naive: one float32 sum a value of C), where
    the high parts alone would be about 100 times worse; on the tensor cores, which
    truncate what they add into C, only if each step's products are summed apart."""
    fits(device, {}, 4)
    a, b = operands(40, 24, 6007, "CC", np.float32)
    ref = reference(a, b)
    got = portgemm.gemm(a, b, device=device, variant="mma", poison=np.nan).c
    plain = portgemm.gemm(a, b, device=device, variant="naive").c
    high = [np.asarray((x.view(np.uint32) + 0x1000) & 0xFFFFE000, np.uint32).view(np.float32)
            for x in (a, b)]
    assert relative_error(high[0] @ high[1], ref) > 50 * relative_error(plain, ref)
    assert relative_error(got, ref) <= 3 * relative_error(plain, ref)
