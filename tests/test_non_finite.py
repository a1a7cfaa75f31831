"""NaN and infinity land in C where numpy puts them, for every registered variant on
every device and the host backend's: a kernel that read past an edge of A or B into
values it then multiplied by a padding zero, or skipped a product, would put a NaN where
numpy has a number, or a number where numpy has a NaN. The tensor cores' float32
(3xTF32: mma, wgmma) splits an infinity into a NaN low part, so their products with one
are NaN where IEEE gives ±inf (docs/known-issues.md); there C is still non-finite
exactly where numpy's is."""

from __future__ import annotations

import numpy as np
import pytest

import portgemm
from portgemm.families import REGISTRY

from conftest import refuses

SHAPES = [(37, 29, 53), (3, 3, 5000), (130, 17, 9), (1, 40, 33), (200, 3, 70)]
SPLIT_INFINITIES = {"mma", "wgmma"}  # float32 only


def poisoned(m, n, k, dtype, seed):
    """A and B with an infinity in A, a NaN in B, and infinities along the last step of
    K in A's last row and in B's last column (the edges a tile pads)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    a[m // 2, k // 3] = np.inf
    b[k // 2, n // 2] = np.nan
    a[m - 1, k - 1] = -np.inf
    b[:, n - 1] = np.inf
    return a, b


@pytest.mark.parametrize("variant", list(REGISTRY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_non_finite_values_land_where_numpys_do(device, variant, dtype):
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("device has no float64")
    for seed, (m, n, k) in enumerate(SHAPES):
        a, b = poisoned(m, n, k, dtype, seed)
        if refuses(device, variant, a, b):
            return
        with np.errstate(invalid="ignore"):
            expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
        c = portgemm.gemm(a, b, device=device, variant=variant, poison=0.0).c
        shape = f"{m} x {n} x {k}"
        np.testing.assert_array_equal(np.isfinite(c), np.isfinite(expected), err_msg=shape)
        if variant in SPLIT_INFINITIES and dtype == np.float32:
            continue
        np.testing.assert_array_equal(np.isnan(c), np.isnan(expected), err_msg=shape)
        np.testing.assert_array_equal(np.sign(c[np.isinf(c)]),
                                      np.sign(expected[np.isinf(expected)]), err_msg=shape)
        finite = np.isfinite(expected)
        np.testing.assert_allclose(c[finite], expected[finite], rtol=1e-3, atol=1e-3,
                                   err_msg=shape)


@pytest.mark.parametrize("variant", portgemm.variants(backend="host"))
def test_host_variants_too(variant):
    for seed, (m, n, k) in enumerate(SHAPES[2:]):
        a, b = poisoned(m, n, k, np.float64, seed)
        with np.errstate(invalid="ignore"):
            expected = a @ b
            c = portgemm.gemm(a, b, backend="host", variant=variant).c
        np.testing.assert_array_equal(np.isnan(c), np.isnan(expected), err_msg=variant)
        np.testing.assert_array_equal(c[np.isinf(c)], expected[np.isinf(expected)])
