"""Driver discovery: pip-installed and unregistered drivers are made visible, once each."""

import json
import os
import subprocess
import sys
from importlib import metadata

import pytest

from portgemm.runtime import drivers


def run_fresh(code: str, **env) -> str:
    """Run ``code`` in a new interpreter (the ICD loader reads its settings only once)."""
    full_env = {**os.environ, **env}
    for key, value in env.items():
        if value is None:
            full_env.pop(key)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=full_env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


LIST_PLATFORMS = """
import json, portgemm
from portgemm.runtime import register_drivers
devices = portgemm.get_devices()
report = register_drivers()
print(json.dumps({"platforms": [d.platform for d in devices],
                  "keys": [[d.platform, d.name] for d in devices],
                  "added": [d.name for d in report.added],
                  "vendors_dir": report.vendors_dir}))
"""


def installed(dist: str) -> bool:
    try:
        metadata.distribution(dist)
        return True
    except metadata.PackageNotFoundError:
        return False


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_intel_cpu_runtime_from_pip_appears_without_environment(tmp_path):
    result = json.loads(run_fresh(LIST_PLATFORMS, OCL_ICD_VENDORS=None,
                                  XDG_CACHE_HOME=str(tmp_path)))
    assert any("Intel(R) OpenCL" in p for p in result["platforms"])
    assert "intel-cpu" in result["added"]
    assert result["vendors_dir"].startswith(str(tmp_path))


def test_no_device_listed_twice(tmp_path):
    result = json.loads(run_fresh(LIST_PLATFORMS, XDG_CACHE_HOME=str(tmp_path)))
    keys = [tuple(k) for k in result["keys"]]
    assert len(keys) == len(set(keys))


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_existing_registrations_are_kept_and_not_duplicated(tmp_path):
    """A user's own vendors folder is copied into the private one, and a driver it already
    names (here the Intel runtime itself) is not registered a second time."""
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    library = drivers._intel_cpu_runtime()[0].library
    (vendors / "mine.icd").write_text(library + "\n")
    (vendors / "other.icd").write_text("/nonexistent/libother.so\n")
    result = json.loads(run_fresh(LIST_PLATFORMS, OCL_ICD_VENDORS=str(vendors),
                                  XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert "intel-cpu" not in result["added"]
    assert sum("Intel(R) OpenCL" in p for p in result["platforms"]) == 1


def test_vendors_dir_holds_existing_and_new_icd_files(tmp_path, monkeypatch):
    monkeypatch.setattr(drivers, "_cache_base", lambda: str(tmp_path))
    folder = drivers._write_vendors_dir({"a.icd": "/lib/liba.so", "portgemm-b.icd": "/x/libb.so"})
    assert sorted(os.listdir(folder)) == ["a.icd", "portgemm-b.icd"]
    assert (tmp_path / os.path.basename(folder) / "a.icd").read_text().strip() == "/lib/liba.so"
    # the same content maps to the same folder (reused across runs, no growth)
    assert drivers._write_vendors_dir({"portgemm-b.icd": "/x/libb.so", "a.icd": "/lib/liba.so"}) == folder


def test_unregistered_vendor_library_found_in_library_dirs(tmp_path, monkeypatch):
    lib = tmp_path / "libnvidia-opencl.so.1"
    lib.write_bytes(b"")
    monkeypatch.setattr(drivers, "LIBRARY_DIRS", (str(tmp_path),))
    monkeypatch.setattr(drivers, "_ldconfig_cache", lambda: {})
    found = drivers._vendor_libraries()
    assert [(d.name, d.library) for d in found] == [("nvidia", str(lib))]


def test_ldconfig_fallback(monkeypatch):
    monkeypatch.setattr(drivers, "LIBRARY_DIRS", ())
    monkeypatch.setattr(drivers, "_ldconfig_cache",
                        lambda: {"libnvidia-opencl.so.1": "/usr/lib/libnvidia-opencl.so.1"})
    assert [d.library for d in drivers._vendor_libraries()] == ["/usr/lib/libnvidia-opencl.so.1"]


@pytest.mark.parametrize("a, b", [
    ("libnvidia-opencl.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1"),
    ("/opt/intel/lib/libintelocl.so", "libintelocl.so"),
])
def test_identity_matches_the_same_driver(a, b):
    assert drivers._identity(a) == drivers._identity(b)


def test_identity_tells_drivers_apart():
    assert drivers._identity("libpocl.so.2") != drivers._identity("libintelocl.so")
