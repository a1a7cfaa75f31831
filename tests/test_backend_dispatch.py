"""matmul/gemm and the bench reach the host and dpex backends by name."""

import json

import numpy as np
import pytest

import portgemm
from portgemm.backends.host import HOST_VARIANTS
from portgemm.bench.__main__ import main as bench_main

from conftest import assert_close


@pytest.mark.parametrize("variant", list(HOST_VARIANTS))
@pytest.mark.parametrize("shape", [(1, 1, 1), (13, 7, 31), (67, 129, 3)])
def test_host_variants_through_matmul(variant, shape):
    m, n, k = shape
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    result = portgemm.gemm(a, b, backend="host", variant=variant)
    assert result.backend == "host" and result.variant == variant
    assert_close(result.c, a, b)


def test_host_params_and_errors():
    a = np.ones((9, 9), np.float64)
    c = portgemm.matmul(a, a, backend="host", variant="threads-rows",
                        params={"schedule": "dynamic", "chunk": 1, "num_threads": 2, "block": 2})
    assert np.all(c == 9)
    with pytest.raises(ValueError, match="no parameter"):
        portgemm.matmul(a, a, backend="host", variant="serial-ijk", params={"block": 4})
    with pytest.raises(ValueError, match="host variants"):
        portgemm.matmul(a, a, backend="host", variant="tiled")
    with pytest.raises(ValueError, match="host CPU"):
        portgemm.matmul(a, a, backend="host", device="gpu")
    with pytest.raises(TypeError, match="host CPU"):  # no device spec at all, as OpenCL's
        portgemm.matmul(a, a, backend="host", device=5)
    with pytest.raises(ValueError, match="backends: opencl, host, dpex"):
        portgemm.matmul(a, a, backend="cuda")
    assert portgemm.variants(backend="host") == list(HOST_VARIANTS)


def test_dpex_missing_names_the_install(monkeypatch):
    from portgemm.backends import dpex

    if dpex.dpex_available():
        pytest.skip("numba-dpex is installed here")
    with pytest.raises(portgemm.BackendUnavailableError, match=r'pip install "portgemm\[dpex\]"'):
        portgemm.matmul(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), backend="dpex")


def test_bench_runs_host_beside_opencl(any_device, tmp_path):
    out = tmp_path / "r.json"
    code = bench_main(["--device", f"{any_device.filter_string},host", "--variant",
                       "naive,serial-ikj,threads-rows", "--sizes", "40", "--reps", "1",
                       "--json", str(out), "--no-progress"])
    assert code == 0
    records = json.loads(out.read_text())
    assert {(r["filter_string"], r["variant"]) for r in records} == {
        (any_device.filter_string, "naive"), ("host", "serial-ikj"), ("host", "threads-rows")}
    assert all(r["status"] == "ok" and r["relerr"] < 1e-5 for r in records)


def test_bench_unknown_variant_is_an_error(any_device, capsys):
    with pytest.raises(SystemExit) as info:  # argparse's convention: status 2, one line
        bench_main(["--device", "host", "--variant", "nonesuch", "--sizes", "8"])
    assert info.value.code == 2 and "unknown variant" in capsys.readouterr().err
