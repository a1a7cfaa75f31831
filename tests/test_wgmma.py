"""wgmma: warpgroups of 64 x N x 8 tiles (PTX wgmma.mma_async on an H100 or H200, rebuilt
for sm_90a from the compiler's PTX; the same tiles with multiply-adds elsewhere): right
for any shape, layout and valid tiling in float32, as accurate as a float32 GEMM, refused
in float64; and the PTX edit that reaches the instruction.
"""

import numpy as np
import pytest

import portgemm
from portgemm.families import get_variant
from portgemm.families.wgmma import NARROW
from portgemm.runtime import ptx

from conftest import assert_close, reference, relative_error
from test_mma import SHAPES, operands

PARAMS = {
    "defaults": {},
    "wide": {"WN": 128, "WGM": 2, "KS": 1},                  # 128 x 128, 256 work-items
    "two-along-n": {"WN": 64, "WGN": 2, "KS": 4, "PAD": 0},  # 64 x 128, deep slabs
    "split-k": {"WGM": 2, "KS": 1, "KSPLIT": 3},  # layers past K (short K) write zeros
    "one-slab-ahead": {"LEAD": 1},                 # one, two and many slabs
    "one-ahead-split": {"LEAD": 1, "WGM": 2, "WGN": 2, "KS": 1, "KSPLIT": 2},
    "large-entry": {"WN": 128, "WGM": 2, "KS": 2, "PAD": 0, "KSPLIT": 2},  # Hopper's tile
    "narrow-preset": dict(NARROW, KSPLIT=2),      # auto's 128 x 64 tile for a narrow C
    "n32": {"WN": 32, "WGM": 2, "KS": 2, "PAD": 0, "KSPLIT": 2},  # 128 x 32
    "n48": {"WN": 48, "KS": 2, "LEAD": 1},                        # 64 x 48
    "n32-along-n": {"WN": 32, "WGN": 2, "KS": 2},                 # 64 x 64 in two blocks
    "n80": {"WN": 80, "KS": 2, "PAD": 0},                         # 64 x 80
    "n96": {"WN": 96, "WGM": 2, "KS": 2, "KSPLIT": 2},            # 128 x 96
    "three-along-n": {"WN": 32, "WGN": 3, "KS": 3},  # 4 KS / WGN = 4 values of A, runs of 2
}


def fits(device, params):
    impl = get_variant("wgmma")
    problems = impl.problems(impl.resolve(params), device, 4)
    if problems:
        pytest.skip(f"does not fit {device.description}: {problems}")


@pytest.mark.parametrize("name", PARAMS)
def test_any_shape_and_layout(device, name):
    fits(device, PARAMS[name])
    for i, (m, n, k) in enumerate(SHAPES):
        order = ("CC", "FC", "CF", "FF", "CC")[i]
        a, b = operands(m, n, k, order, np.float32)
        result = portgemm.gemm(a, b, device=device, variant="wgmma", params=PARAMS[name],
                               poison=np.nan)
        assert_close(result.c, a, b)


def test_as_accurate_as_a_float32_gemm(device):
    """3xTF32 with each slab's products summed apart: near a plain float32 kernel's error
    over a deep K (the high TF32 parts alone: test_mma shows them 50 times worse)."""
    fits(device, {})
    a, b = operands(40, 24, 6007, "CC", np.float32)
    ref = reference(a, b)
    got = portgemm.gemm(a, b, device=device, variant="wgmma", poison=np.nan).c
    plain = portgemm.gemm(a, b, device=device, variant="naive").c
    assert relative_error(got, ref) <= 3 * relative_error(plain, ref)


def test_float64_is_refused(any_device):
    a, b = operands(8, 8, 8, "CC", np.float64)
    if not any_device.has_fp64:
        pytest.skip("device has no float64")
    with pytest.raises(portgemm.ParameterError, match="float32 only"):
        portgemm.gemm(a, b, device=any_device, variant="wgmma")


def test_shapes_the_kernel_lacks_are_refused():
    with pytest.raises(portgemm.ParameterError, match="32, 48, 64, 80, 96 or 128"):
        get_variant("wgmma").resolve({"WN": 72})
    # 48 columns, 2 warpgroups down M, slabs of 16: 3 values of B a work-item
    with pytest.raises(portgemm.ParameterError, match="whole even number"):
        get_variant("wgmma").resolve({"WN": 48, "WGM": 2, "KS": 2})


@pytest.mark.parametrize("params", [{"WGN": 3}, {"WGN": 4, "KS": 1}, {"WGN": 8, "KS": 2},
                                    {"WGN": 3, "KS": 2, "LEAD": 1}])
def test_slabs_of_a_staged_in_part_are_refused(params):
    """4 KS / WGN values of A a work-item, not a whole even number: the kernel staged only
    part of A's slab, and C came out wrong (or from uninitialised local memory)."""
    with pytest.raises(portgemm.ParameterError, match="values of A and of B"):
        get_variant("wgmma").resolve(params)


def test_lead_past_two_is_refused():
    """A ParameterError, not the kernel's #error as a BuildError on every call."""
    with pytest.raises(portgemm.ParameterError, match="LEAD must be 1 or 2"):
        get_variant("wgmma").resolve({"LEAD": 3})


PTX = """//
.version 9.0
.target sm_90
.address_size 64
\t// begin inline asm
\t//sm_90a:wgmma.fence.sync.aligned;
\t// end inline asm
\t// an ordinary comment
"""


def test_the_ptx_edit_makes_marked_comments_instructions_for_sm90a():
    assert ptx.needs_sm90a(PTX) and not ptx.needs_sm90a(PTX.replace("//sm_90a:", "//"))
    edited = ptx.for_sm90a(PTX)
    assert ".target sm_90a\n" in edited
    assert "\twgmma.fence.sync.aligned;\n" in edited
    assert "// an ordinary comment" in edited and "//sm_90a:" not in edited


def test_the_ptx_edit_refuses_other_targets():
    with pytest.raises(ValueError, match="compute capability 9.0"):
        ptx.for_sm90a(PTX.replace("sm_90", "sm_100"))


def test_a_nan_makes_its_products_nan(device):
    """The high TF32 part is rounded by integer operations that may turn a NaN (here one
    whose payload lies in the low 13 bits, and one that carries into the sign) into
    another value; the unrounded low part must still carry the NaN into C."""
    fits(device, {})
    a, b = operands(40, 24, 300, "CC", np.float32)
    bits = a.view(np.uint32)
    bits[3, 7] = 0x7F800001   # payload in the bits the rounding drops
    bits[11, 150] = 0xFFFFFFFF  # rounding up carries into the sign
    a[20, 299] = np.inf       # documented: inf's low part is NaN (docs/known-issues.md)
    c = portgemm.gemm(a, b, device=device, variant="wgmma", poison=0.0).c
    for row in (3, 11, 20):
        assert np.isnan(c[row]).all(), row
    others = np.delete(c, [3, 11, 20], axis=0)
    assert np.isfinite(others).all()
