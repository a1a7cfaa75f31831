"""Driver discovery: pip-installed and unregistered drivers are made visible, once each."""

import hashlib
import json
import os
import stat
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pyopencl
import pytest

from portgemm.runtime import device as device_module
from portgemm.runtime import drivers


def run_fresh(code: str, **env) -> str:
    """Run ``code`` in a new interpreter (the ICD loader reads its settings only once)."""
    full_env = {**os.environ, **env}
    for key, value in env.items():
        if value is None:
            full_env.pop(key, None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=full_env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


LIST_PLATFORMS = """
import json, portgemm
from portgemm.runtime import register_drivers
devices = portgemm.get_devices()
report = register_drivers()
import pyopencl
per_platform = {}  # the most devices of one name any one platform of that name holds
for p in pyopencl.get_platforms():
    names = [d.name.strip() for d in p.get_devices()]
    for name in set(names):
        key = p.name.strip() + "/" + name
        per_platform[key] = max(per_platform.get(key, 0), names.count(name))
print(json.dumps({"platforms": [d.platform for d in devices],
                  "keys": [[d.platform, d.name] for d in devices],
                  "per_platform": per_platform,
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


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
@pytest.mark.parametrize("name", ["icd-vendors-0123456789abcdef", "portgemm-icd-x1y2z3"])
def test_a_vendors_folder_removed_since_the_parent_made_it_is_made_again(tmp_path, name):
    """A child process inherits OCL_ICD_VENDORS naming portgemm's folder; where that was
    removed (rm -rf of the cache folder while the parent ran, or the parent's temporary
    folder gone at its exit) the child saw no OpenCL device at all."""
    gone = tmp_path / "cache" / "portgemm" / name
    result = json.loads(run_fresh(LIST_PLATFORMS, OCL_ICD_VENDORS=str(gone),
                                  XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert any("Intel(R) OpenCL" in p for p in result["platforms"])
    assert result["vendors_dir"] and result["vendors_dir"] != str(gone)


USER_FOLDER_IN_A_CHILD = """
import json, os, shutil, subprocess, sys
from portgemm.runtime import register_drivers
report = register_drivers()
shutil.rmtree(report.vendors_dir)  # gone while the parent runs (rm -rf of the cache)
child = subprocess.run([sys.executable, "-c", "import json; from portgemm.runtime import "
                        "register_drivers; print(json.dumps(register_drivers().registered))"],
                       capture_output=True, text=True, check=True)
print(child.stdout)
"""


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_a_child_of_a_removed_vendors_folder_starts_from_the_users_own(tmp_path):
    """A child whose inherited portgemm folder was gone registered again from the system's
    folder, losing the drivers named in the user's own OCL_ICD_VENDORS folder."""
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    (own / "mine.icd").write_text("/opt/mine/libmine-opencl.so\n")
    registered = json.loads(run_fresh(USER_FOLDER_IN_A_CHILD, OCL_ICD_VENDORS=str(own),
                                      XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert "/opt/mine/libmine-opencl.so" in registered


def test_devices_do_not_depend_on_a_writable_cache_folder(tmp_path):
    """PoCL needs a folder for its kernel cache: with XDG_CACHE_HOME unwritable it listed
    no device, and every device after it changed its index."""
    writable = json.loads(run_fresh(LIST_PLATFORMS, OCL_ICD_VENDORS=None,
                                    XDG_CACHE_HOME=str(tmp_path / "cache")))
    temp = tmp_path / "tmp"
    temp.mkdir()
    unwritable = json.loads(run_fresh(LIST_PLATFORMS, OCL_ICD_VENDORS=None,
                                      XDG_CACHE_HOME=unwritable_cache(tmp_path),
                                      POCL_CACHE_DIR=None, TMPDIR=str(temp)))
    assert unwritable["keys"] == writable["keys"]


def test_no_platform_listed_twice(tmp_path):
    result = json.loads(run_fresh(LIST_PLATFORMS, XDG_CACHE_HOME=str(tmp_path)))
    keys = [tuple(k) for k in result["keys"]]
    for platform, name in set(keys):  # two .icd files for one driver: listed once
        assert keys.count((platform, name)) == result["per_platform"][f"{platform}/{name}"]


PLATFORMS_FIRST = """
import json, warnings
import pyopencl
pyopencl.get_platforms()  # the loader reads its drivers now, before portgemm registers any
import portgemm
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    platforms = [d.platform for d in portgemm.get_devices()]
print(json.dumps({"platforms": platforms,
                  "warnings": [str(w.message) for w in caught
                               if issubclass(w.category, RuntimeWarning)]}))
"""


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_platforms_listed_before_portgemm_leave_a_warning_not_a_silent_stand_in(tmp_path):
    """Listed first, the platforms lack Intel's runtime and "intel" would match PoCL's
    "pthread-Intel(R) Xeon": the user is told why and what to do."""
    result = json.loads(run_fresh(PLATFORMS_FIRST, OCL_ICD_VENDORS=None,
                                  XDG_CACHE_HOME=str(tmp_path)))
    if "Intel(R) OpenCL" in result["platforms"]:
        pytest.skip("Intel's runtime is registered system-wide: the loader lists it anyway")
    assert len(result["warnings"]) == 1
    assert "libintelocl.so" in result["warnings"][0]
    assert "before pyopencl.get_platforms()" in result["warnings"][0]


def added_intel_report(pyopencl_first: bool) -> drivers.DriverReport:
    return drivers.DriverReport(
        added=[drivers.Driver("intel-cpu", "/x/libintelocl.so", "pip: intel-opencl-rt")],
        pyopencl_first=pyopencl_first)


def test_a_registered_driver_without_its_platform_is_noted_once_and_warned_of():
    report = added_intel_report(pyopencl_first=True)
    with pytest.warns(RuntimeWarning, match="libintelocl.so"):
        drivers.check_listed(report, ["Portable Computing Language"])
    drivers.check_listed(report, ["Portable Computing Language"])  # a refresh: no repeat
    assert len(report.notes) == 1 and "no Intel(R) OpenCL platform" in report.notes[0]


def test_a_missing_platform_is_only_noted_where_pyopencl_did_not_come_first(recwarn):
    report = added_intel_report(pyopencl_first=False)
    drivers.check_listed(report, ["Portable Computing Language"])
    assert len(report.notes) == 1
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_a_listed_platform_needs_no_note(recwarn):
    report = added_intel_report(pyopencl_first=True)
    drivers.check_listed(report, ["Intel(R) OpenCL ", "Portable Computing Language"])
    assert report.notes == [] and not list(recwarn)


def fake_cl_device(name="NVIDIA H200"):
    return SimpleNamespace(
        name=name, vendor="NVIDIA Corporation", type=pyopencl.device_type.GPU,
        max_compute_units=132, max_work_group_size=1024, max_work_item_sizes=[1024] * 3,
        local_mem_size=49152, global_mem_size=2**37, max_mem_alloc_size=2**35,
        double_fp_config=1, extensions="cl_khr_fp64", driver_version="580.159.04",
        version="OpenCL 3.0 CUDA", max_clock_frequency=1980, native_vector_width_float=1,
        global_mem_cache_size=0)


def fake_platform(devices):
    return SimpleNamespace(name="NVIDIA CUDA", vendor="NVIDIA Corporation",
                           version="OpenCL 3.0 CUDA 13.0", get_devices=lambda: devices)


def test_identical_gpus_are_each_listed_and_a_duplicated_icd_is_not():
    """Two H200s of one platform are two devices (the H200 x2 machine listed one: the
    devices had been de-duplicated by name); the same driver registered by two .icd
    files is one platform."""
    gpus = [fake_cl_device(), fake_cl_device()]
    listed = device_module._enumerate([fake_platform(gpus), fake_platform(gpus)])
    assert [d.filter_string for d in listed] == ["opencl:gpu:0", "opencl:gpu:1"]
    assert [d.handle for d in listed] == gpus


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


def test_vendors_folders_whose_libraries_are_all_gone_are_removed(tmp_path, monkeypatch):
    """A deleted venv leaves a folder naming its libraries; only such folders go."""
    monkeypatch.setattr(drivers, "_cache_base", lambda: str(tmp_path))
    alive = tmp_path / "libalive.so"
    alive.write_text("")

    def folder(name, **icds):
        made = tmp_path / f"icd-vendors-{name}"
        made.mkdir(mode=0o700)
        for file_name, library in icds.items():
            (made / f"{file_name}.icd").write_text(library + "\n")
        return made

    dead = folder("dead", a="/gone/venv/lib/libintelocl.so", b="/gone/libother.so")
    mixed = folder("mixed", a="/gone/venv/lib/libintelocl.so", b=str(alive))
    bare = folder("bare", a="libnvidia-opencl.so.1")
    filling = folder("filling")
    kept = drivers._write_vendors_dir({"a.icd": "/gone/venv/lib/libintelocl.so"})
    assert not dead.exists()
    assert mixed.is_dir() and bare.is_dir() and filling.is_dir()
    assert (Path(kept) / "a.icd").is_file()  # the folder asked for stays, dead or not


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


# --- registration runs once, and only ever from a folder nobody else can write ----------

COUNT_REGISTRATIONS = """
import threading, time, portgemm
from portgemm.runtime import drivers
calls = []
real = drivers._register

def slow_register():
    calls.append(1)
    time.sleep(0.2)  # every thread arrives while the first one registers
    return real()

drivers._register = slow_register
start = threading.Barrier(8)

def first_call():
    start.wait()
    portgemm.get_devices()

threads = [threading.Thread(target=first_call) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(calls))
"""


def test_eight_threads_register_once(tmp_path):
    assert run_fresh(COUNT_REGISTRATIONS, XDG_CACHE_HOME=str(tmp_path)).strip() == "1"


REPORT_FOLDER = """
import json, os, portgemm
from portgemm.runtime import register_drivers
portgemm.get_devices()
folder = register_drivers().vendors_dir
info = os.stat(folder)
print(json.dumps({"folder": folder, "env": os.environ["OCL_ICD_VENDORS"],
                  "files": sorted(os.listdir(folder)), "mode": info.st_mode & 0o777,
                  "uid": info.st_uid}))
"""


def unwritable_cache(tmp_path) -> str:
    """An XDG_CACHE_HOME that cannot be made, even by root: a path under a file."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    return str(blocker / "cache")


def registering_environment(tmp_path, cache: str) -> dict:
    """A vendors folder of our own (so something is always added) and a private TMPDIR."""
    vendors = tmp_path / "vendors"
    vendors.mkdir(exist_ok=True)
    (vendors / "other.icd").write_text("/nonexistent/libother.so\n")
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    return {"OCL_ICD_VENDORS": str(vendors), "XDG_CACHE_HOME": cache, "TMPDIR": str(temp)}


def folder_in_use(tmp_path, cache: str) -> dict:
    return json.loads(run_fresh(REPORT_FOLDER, **registering_environment(tmp_path, cache)))


def old_predictable_folder(tmp_path) -> str:
    """Where registration used to fall back to: <tmp>/icd-vendors-<hash of the content>."""
    lines = {"other.icd": "/nonexistent/libother.so"}
    for driver in drivers._intel_cpu_runtime() + drivers._vendor_libraries():
        lines.setdefault(f"portgemm-{driver.name}.icd", driver.library)
    content = "\n".join(f"{k}={v}" for k, v in sorted(lines.items()))
    return str(tmp_path / "tmp" / f"icd-vendors-{hashlib.sha256(content.encode()).hexdigest()[:16]}")


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_icd_planted_in_the_old_shared_folder_is_not_loaded(tmp_path):
    planted = old_predictable_folder(tmp_path)
    os.makedirs(planted)
    with open(os.path.join(planted, "evil.icd"), "w") as f:
        f.write("/tmp/libevil.so\n")
    used = folder_in_use(tmp_path, unwritable_cache(tmp_path))
    assert used["env"] == used["folder"] != planted
    assert "evil.icd" not in used["files"]


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_unwritable_cache_gives_a_fresh_private_temporary_folder(tmp_path):
    cache = unwritable_cache(tmp_path)
    first, second = folder_in_use(tmp_path, cache), folder_in_use(tmp_path, cache)
    for used in (first, second):
        assert used["folder"].startswith(str(tmp_path / "tmp"))
        assert used["mode"] == 0o700 and used["uid"] == os.getuid()
        assert "portgemm-intel-cpu.icd" in used["files"]
        assert not os.path.exists(used["folder"])  # removed when its process ended
    assert first["folder"] != second["folder"]  # never reused


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_a_product_runs_where_no_cache_folder_can_be_made(tmp_path):
    """pyopencl's invoker cache (pytools, in the same cache folder) raised
    PermissionError at the first kernel of a process whose cache folder cannot be
    written; it is turned off there instead (runtime/invoker_cache.py)."""
    code = ("import numpy as np, portgemm; a = np.arange(12.0, dtype=np.float32)"
            ".reshape(3, 4); print(float(abs(portgemm.matmul(a, a.T, device='intel')"
            " - a @ a.T).max()))")
    environment = registering_environment(tmp_path, unwritable_cache(tmp_path))
    assert float(run_fresh(code, **environment).strip().splitlines()[-1]) == 0.0


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_cache_folder_others_can_write_is_not_used(tmp_path):
    cache = tmp_path / "cache"
    (cache / "portgemm").mkdir(parents=True)
    os.chmod(cache / "portgemm", 0o777)
    used = folder_in_use(tmp_path, str(cache))
    assert not used["folder"].startswith(str(cache))
    assert used["mode"] == 0o700


@pytest.mark.skipif(not installed("intel-opencl-rt"), reason="intel-opencl-rt not installed")
def test_private_cache_folder_is_used_and_reused(tmp_path):
    cache = tmp_path / "cache"
    first, second = folder_in_use(tmp_path, str(cache)), folder_in_use(tmp_path, str(cache))
    assert first["folder"].startswith(str(cache / "portgemm")) and first == second
    assert not os.stat(first["folder"]).st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def test_stray_icd_in_the_private_folder_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(drivers, "_cache_base", lambda: str(tmp_path))
    folder = drivers._write_vendors_dir({"a.icd": "/lib/liba.so"})
    (tmp_path / os.path.basename(folder) / "stray.icd").write_text("/lib/libstray.so\n")
    assert drivers._write_vendors_dir({"a.icd": "/lib/liba.so"}) == folder
    assert os.listdir(folder) == ["a.icd"]


def test_a_damaged_icd_file_is_written_anew(tmp_path, monkeypatch):
    """A .icd file that is not UTF-8 (a disk error, an edit) raised UnicodeDecodeError
    from every later process; in our folder it is written anew, in another left alone."""
    monkeypatch.setattr(drivers, "_cache_base", lambda: str(tmp_path))
    folder = drivers._write_vendors_dir({"a.icd": "/lib/liba.so"})
    (tmp_path / os.path.basename(folder) / "a.icd").write_bytes(b"\xff\xfe garbage\n")
    other = tmp_path / "icd-vendors-0000000000000000"
    other.mkdir(mode=0o700)
    (other / "b.icd").write_bytes(b"\xff\xfe garbage\n")
    assert drivers._write_vendors_dir({"a.icd": "/lib/liba.so"}) == folder
    assert (tmp_path / os.path.basename(folder) / "a.icd").read_text() == "/lib/liba.so\n"
    assert (other / "b.icd").exists()


@pytest.mark.parametrize("version, flags, refused", [
    ("OpenCL 3.0 PoCL HSTR: pthread-x86_64-unknown-linux-gnu-znver3", {"avx2", "avx512f"}, True),
    ("OpenCL 3.0 PoCL HSTR: pthread-x86_64-unknown-linux-gnu-znver3", {"avx2"}, False),
    ("OpenCL 3.0 PoCL HSTR: pthread-x86_64-unknown-linux-gnu-skylake-avx512", {"avx512f"}, False),
    ("OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-znver4", {"avx512f"}, False),
    ("OpenCL 3.0 PoCL HSTR: pthread-x86_64-unknown-linux-gnu-haswell", {"avx512f"}, True),
    ("OpenCL 3.0 (Build 0)", {"avx512f"}, False),  # not PoCL's form: not told
])
def test_a_pocl_compiling_for_an_older_cpu_is_refused(version, flags, refused):
    """PoCL 3.0's LLVM 14 names a Zen 4 'znver3' (no AVX-512) and aborts in some kernels."""
    from portgemm.runtime.pocl_target import older_target

    reason = older_target(version, flags)
    assert bool(reason) == refused
    if refused:
        assert "AVX-512" in reason and "device='intel'" in reason


def test_a_refused_pocl_raises_a_build_error_before_compiling(monkeypatch):
    import portgemm
    from portgemm.runtime import pocl_target
    from portgemm.runtime.queue import Queue

    device = portgemm.get_devices()[0]
    monkeypatch.setattr(pocl_target, "refusal", lambda d: "compiles for 'znver3'")
    with pytest.raises(portgemm.BuildError, match="refused.*znver3"):
        Queue.for_device(device)._build("__kernel void k(void) {}", ())
