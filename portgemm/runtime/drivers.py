"""Make installed-but-unregistered OpenCL drivers visible, with no environment set by hand.

The ICD loader (the one bundled in pyopencl's wheel, or the system's) lists the drivers
named by ``*.icd`` files in /etc/OpenCL/vendors, or in ``$OCL_ICD_VENDORS`` when that is
set. Two common cases leave a working driver out of that list:

* Intel's CPU runtime from PyPI (``intel-opencl-rt``) ships an ``.icd`` file that holds a
  build-time placeholder path, and its library wants the compiler runtime of
  ``intel-cmplr-lib-rt`` (libimf, libsvml, libirng, libintlc) loaded first.
* Containers that mount a vendor's library (``libnvidia-opencl.so.1``) without its
  ``.icd`` file.

:func:`register_drivers` finds both, writes a private vendors folder holding a copy of
every ``.icd`` already registered plus one per driver found, and points
``OCL_ICD_VENDORS`` at it. The loader reads that variable once, on the first platform
query of the process, so this must run before anything asks OpenCL for platforms;
``portgemm.get_devices()`` does it first thing, once per process even when several
threads ask at the same time.

Every ``.icd`` file in that folder names a library the loader will dlopen, so the folder
must be one nobody else can write: the user's cache folder when it is owned by the user
and not writable by group or others, else a fresh ``tempfile.mkdtemp()`` (mode 0700,
never reused, removed at exit). A shared, predictable path such as
``/tmp/icd-vendors-<hash>`` would let anyone who can write /tmp load code into the process.
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from ..files import check_private_folder, user_cache_folder, write_atomically
from .libraries import find_library, load_library

SYSTEM_VENDORS_DIR = "/etc/OpenCL/vendors"
# The user's own OCL_ICD_VENDORS, kept for child processes while the variable names
# portgemm's folder: where that folder is gone, the child starts again from the user's.
USER_VENDORS_VARIABLE = "PORTGEMM_USER_OCL_ICD_VENDORS"

# Vendor OpenCL libraries that containers and driver installs often leave unregistered.
VENDOR_LIBRARIES = {
    "nvidia": "libnvidia-opencl.so.1",
    "amd": "libamdocl64.so",
    "intel-gpu": "libigdrcl.so",
}
LIBRARY_DIRS = (
    "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib", "/usr/lib/wsl/lib", "/opt/rocm/lib", "/opt/rocm/opencl/lib",
)
# The platform name each driver above shows as, by which a driver registered but not
# listed is noticed (Intel's GPU runtime has had two names).
PLATFORM_NAMES = {
    "intel-cpu": ("Intel(R) OpenCL",),
    "nvidia": ("NVIDIA CUDA",),
    "amd": ("AMD Accelerated Parallel Processing",),
    "intel-gpu": ("Intel(R) OpenCL Graphics", "Intel(R) OpenCL HD Graphics"),
}
# Intel's CPU runtime resolves these from the compiler runtime package at load time.
INTEL_COMPANION_LIBRARIES = ("libintlc.so.5", "libimf.so", "libsvml.so", "libirng.so")


@dataclass(frozen=True)
class Driver:
    """An OpenCL driver library and where it was found."""

    name: str
    library: str
    origin: str


@dataclass
class DriverReport:
    """What :func:`register_drivers` saw and did; printed by ``python -m portgemm.devices``."""

    registered: list[str] = field(default_factory=list)  # libraries named by existing .icd files
    added: list[Driver] = field(default_factory=list)
    vendors_dir: str | None = None  # the private folder, when one was written
    notes: list[str] = field(default_factory=list)
    # pyopencl was imported before registering: it may have listed the platforms already
    pyopencl_first: bool = False


_report: DriverReport | None = None
_register_lock = threading.Lock()


def register_drivers() -> DriverReport:
    """Register the drivers found (once per process, whichever thread asks first) and
    say what was done."""
    global _report
    if _report is None:
        with _register_lock:
            if _report is None:  # another thread may have registered while we waited
                _report = _register()
    return _report


def _pocl_cache_fallback() -> None:
    """Where PoCL's kernel cache (``$XDG_CACHE_HOME/pocl``, else ``~/.cache/pocl``)
    cannot be made, a private temporary one (``POCL_CACHE_DIR``, removed at exit): PoCL
    otherwise reports no device at all, and the device indices after it shift."""
    if os.environ.get("POCL_CACHE_DIR"):
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    try:
        os.makedirs(os.path.join(base, "pocl"), exist_ok=True)
    except OSError:
        folder = tempfile.mkdtemp(prefix="portgemm-pocl-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["POCL_CACHE_DIR"] = folder


def _register() -> DriverReport:
    _pocl_cache_fallback()
    inherited = os.environ.get("OCL_ICD_VENDORS")
    if inherited and not os.path.isdir(inherited) and _is_vendors_folder(Path(inherited)):
        # a folder portgemm made for the parent process, removed since (rm -rf of the
        # cache folder, or the parent's temporary one gone at its exit): left as it was,
        # this process saw no OpenCL device at all; the user's own folder, if the parent
        # had one, is the one to start from
        os.environ.pop("OCL_ICD_VENDORS")
        if os.environ.get(USER_VENDORS_VARIABLE):
            os.environ["OCL_ICD_VENDORS"] = os.environ[USER_VENDORS_VARIABLE]
    source_dir = os.environ.get("OCL_ICD_VENDORS") or SYSTEM_VENDORS_DIR
    icd_files = sorted(glob.glob(os.path.join(source_dir, "*.icd")))
    registered = [_read_icd(path) for path in icd_files]
    report = DriverReport(registered=[lib for lib in registered if lib],
                          pyopencl_first="pyopencl" in sys.modules)
    if os.environ.get("OCL_ICD_VENDORS") and not os.path.isdir(source_dir):
        report.notes.append(f"OCL_ICD_VENDORS={source_dir} is not a folder: left as it is")
        return report

    known = {_identity(lib) for lib in report.registered}
    for driver in _intel_cpu_runtime() + _vendor_libraries():
        if _identity(driver.library) in known:
            continue
        known.add(_identity(driver.library))
        report.added.append(driver)
    if not report.added:
        return report

    for driver in report.added:
        if driver.name == "intel-cpu":
            _preload_intel_companions(Path(driver.library).parent, report)
    icd_lines = {Path(p).name: _read_icd(p) for p in icd_files}
    for driver in report.added:
        icd_lines[f"portgemm-{driver.name}.icd"] = driver.library
    report.vendors_dir = _write_vendors_dir(icd_lines)
    if os.environ.get("OCL_ICD_VENDORS") and not _is_vendors_folder(Path(source_dir)):
        os.environ[USER_VENDORS_VARIABLE] = os.environ["OCL_ICD_VENDORS"]
    os.environ["OCL_ICD_VENDORS"] = report.vendors_dir
    return report


def check_listed(report: DriverReport, platform_names: list[str]) -> None:
    """Note each driver registered here whose platform the loader did not list, and warn
    where pyopencl came first: the loader reads its drivers on the process's first
    platform query, so a ``pyopencl.get_platforms()`` before it leaves them out, and a
    selector such as "intel" would then quietly match another platform's device."""
    listed = {name.strip() for name in platform_names}
    for driver in report.added:
        expected = PLATFORM_NAMES.get(driver.name)
        if expected is None or listed & set(expected):
            continue
        note = (f"{driver.library} ({driver.origin}) is registered but no {expected[0]} "
                f"platform is listed: the driver found no device, or OpenCL's platforms "
                f"were listed before portgemm registered it")
        if note in report.notes:
            continue
        report.notes.append(note)
        if report.pyopencl_first:
            warnings.warn(f"{note}. pyopencl was imported first: call portgemm.get_devices() "
                          f"(or any portgemm device query) before pyopencl.get_platforms()",
                          RuntimeWarning, stacklevel=3)


def _read_icd(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _identity(library: str) -> str:
    """Name under which two .icd entries count as the same driver (avoids listing twice)."""
    real = os.path.realpath(library) if os.path.isabs(library) else library
    name = os.path.basename(real)
    return name.split(".so")[0]


def _intel_cpu_runtime() -> list[Driver]:
    """Intel's CPU OpenCL runtime installed from PyPI (``pip install portgemm[intel]``)."""
    try:
        dist = metadata.distribution("intel-opencl-rt")
    except metadata.PackageNotFoundError:
        return []
    for entry in dist.files or ():
        if entry.name == "libintelocl.so":
            path = Path(dist.locate_file(entry)).resolve()
            if path.is_file():
                return [Driver("intel-cpu", str(path), "pip: intel-opencl-rt")]
    return []


def _preload_intel_companions(lib_dir: Path, report: DriverReport) -> None:
    search = [lib_dir, Path(sys.prefix) / "lib"]
    for name in INTEL_COMPANION_LIBRARIES:
        path = find_library(name, search)
        if path is None:
            report.notes.append(f"{name} not found: pip install intel-cmplr-lib-rt")
            continue
        try:
            load_library(path)
        except OSError as exc:
            report.notes.append(f"could not load {path}: {exc}")


def _vendor_libraries() -> list[Driver]:
    found = []
    cache = None
    for name, soname in VENDOR_LIBRARIES.items():
        path = next((os.path.join(d, soname) for d in LIBRARY_DIRS
                     if os.path.isfile(os.path.join(d, soname))), None)
        if path is None:
            cache = _ldconfig_cache() if cache is None else cache
            path = cache.get(soname)
        if path:
            found.append(Driver(name, path, "unregistered system library"))
    return found


def _ldconfig_cache() -> dict[str, str]:
    """soname -> path from the dynamic linker's cache (64-bit entries only)."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    paths = {}
    for line in out.splitlines():
        name, sep, rest = line.strip().partition(" (")
        if sep and ("x86-64" in rest or "64bit" in rest):
            paths.setdefault(name, rest.rsplit("=> ", 1)[-1])
    return paths


VENDORS_PREFIX = "icd-vendors-"   # a vendors folder in the cache folder
TEMPORARY_PREFIX = "portgemm-icd-"  # ... or in a temporary one


def _is_vendors_folder(path: Path) -> bool:
    """Whether ``path`` is named as the vendors folders portgemm makes."""
    return path.name.startswith((VENDORS_PREFIX, TEMPORARY_PREFIX))


def _write_vendors_dir(icd_lines: dict[str, str]) -> str:
    """A private folder holding exactly these .icd files: in the user's cache folder
    (named by their content, reused across runs) when that folder is the user's alone,
    else a fresh temporary folder."""
    content = "\n".join(f"{k}={v}" for k, v in sorted(icd_lines.items()))
    digest = hashlib.sha256(content.encode()).hexdigest()[:16]
    try:
        folder = _private_folder(Path(_cache_base()), f"{VENDORS_PREFIX}{digest}")
        _fill(folder, icd_lines)
        _remove_dead_folders(folder)
        return str(folder)
    except OSError:
        pass
    folder = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX))  # mode 0700, a new name
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _fill(folder, icd_lines)
    return str(folder)


def _remove_dead_folders(kept: Path) -> None:
    """Remove the other vendors folders beside ``kept`` whose every .icd names a library
    by a full path that no longer exists: a venv since deleted leaves one behind for good
    (each venv's Intel runtime has its own path, so its own folder). A folder naming a
    bare soname, or still being filled (no .icd yet), is left alone."""
    for folder in kept.parent.glob(f"{VENDORS_PREFIX}*"):
        if folder == kept or folder.is_symlink() or not folder.is_dir():
            continue
        try:
            libraries = [icd.read_text(errors="replace").strip()
                         for icd in folder.glob("*.icd")]
        except OSError:
            continue
        if libraries and all(os.path.isabs(lib) and not os.path.exists(lib)
                             for lib in libraries):
            shutil.rmtree(folder, ignore_errors=True)


def _private_folder(base: Path, name: str) -> Path:
    """``base/name``, made if missing; OSError unless both are folders owned by this user
    and writable by nobody else (a folder others can write may hold their .icd files)."""
    folder = base / name
    for path in (base, folder):
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        check_private_folder(path)
    return folder


def _fill(folder: Path, icd_lines: dict[str, str]) -> None:
    """Make ``folder`` hold exactly ``icd_lines`` as .icd files, each written atomically
    (concurrent processes never see half a file); any other .icd there is removed."""
    for file_name, library in icd_lines.items():
        target = folder / file_name
        # a damaged file (not UTF-8, say) reads as something else, and is written anew
        if not target.exists() or target.read_text(errors="replace").strip() != library:
            write_atomically(target, library + "\n")
    for stale in folder.glob("*.icd"):
        if stale.name not in icd_lines:
            stale.unlink()


def _cache_base() -> str:
    return str(user_cache_folder())
