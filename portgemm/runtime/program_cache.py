"""Built OpenCL programs kept on disk, so a new process does not compile them again.

One file per program, named by a hash of what decides the binary: the device (vendor,
name, driver version, platform and its version), the whole source and the build
options. The folder is ``$PORTGEMM_PROGRAM_CACHE`` when that names one (``off``
disables the cache), else ``programs/`` in portgemm's user cache folder
(``platformdirs.user_cache_dir("portgemm")``). Files are written atomically; one that
no longer loads (a driver update the version string missed, a truncated file) is built
again from source and replaced. ``portgemm.clear_caches(disk=True)`` deletes the folder.
Not cached: a source that includes files (``#include``: the key cannot see a header
change; portgemm's own kernels have theirs inlined), and anything where the folder may
be written by others (its binaries would run as this user's), as drivers.py judges the
folder of .icd files. A temporary file an hour old, left by a process killed while
writing, goes at the next trim.

The folder holds at most CACHE_BYTES: a store that passes it deletes the files used
longest ago (a load marks its file used) down to three quarters of it. A tall-skinny C's
tile is compiled in, so a program a shape of C is common; unbounded, the folder of a
development machine here had grown to 7,302 programs, 378 MB.

Some drivers keep a cache of their own (PoCL's kcache, NVIDIA's ComputeCache) and
pyopencl keeps one for the others; with this one every driver is covered the same way,
in one folder portgemm owns, so pyopencl's is not used for portgemm's programs.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import time
import warnings
from pathlib import Path
from typing import Sequence

from ..files import check_private_folder, path_setting, user_cache_folder, write_atomically

PROGRAM_CACHE_ENV_VAR = "PORTGEMM_PROGRAM_CACHE"
SUFFIX = ".bin"
CACHE_BYTES = 256 * 2**20
KEY_LENGTH = 40  # hexadecimal digits of a program's file name
STALE_TEMPORARY_S = 3600  # a temporary file this old is what a killed process left
_PROGRAM_FILE = re.compile(rf"[0-9a-f]{{{KEY_LENGTH}}}{re.escape(SUFFIX)}"
                           rf"|\.[0-9a-f]{{{KEY_LENGTH}}}{re.escape(SUFFIX)}\..+")


def cache_folder() -> Path | None:
    """Where binaries go, or None when the cache is off."""
    setting = path_setting(os.environ.get(PROGRAM_CACHE_ENV_VAR))
    if setting is None:
        return None
    if setting:
        return Path(setting).expanduser()
    return user_cache_folder() / "programs"


def program_key(device, source: str, options: Sequence[str]) -> str:
    """The file name (without suffix) of one device's build of ``source`` with ``options``."""
    digest = hashlib.sha256()
    for part in (device.vendor, device.name, device.driver_version, device.platform,
                 device.platform_version, device.opencl_version, source, *options):
        digest.update(str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:KEY_LENGTH]


def is_program_file(name: str) -> bool:
    """Whether a file of the folder is one this module wrote: a program (its key and
    SUFFIX) or what is left of writing one (write_atomically's ``.<name>.<random>``).
    Nothing else is ever trimmed or cleared: ``PORTGEMM_PROGRAM_CACHE`` may name a folder
    that holds other files too."""
    return _PROGRAM_FILE.fullmatch(name) is not None


def usable_folder(source: str, *, make: bool = False) -> Path | None:
    """The folder for ``source``'s program, or None: the cache off; a source that
    includes files (its key would not see them change: a header edited, the old binary
    loaded and run); or a folder that others may write (binaries put there would run as
    this user's; said once), where ``make`` first makes it if missing."""
    folder = cache_folder()
    if folder is None or "#include" in source:
        return None
    if make:
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except FileExistsError:  # a file of that name: said below, as load says it
            pass
        except OSError as exc:  # a read-only home, say: the cache is simply done without
            _say_once(_unusable(folder, exc))
            return None
    try:
        check_private_folder(folder)
    except FileNotFoundError:  # nothing stored yet
        return None
    except PermissionError as exc:  # others may put files there
        _say_once(f"portgemm: programs are not cached on disk: {exc} (another user's "
                  f"binaries there would be loaded and run)")
        return None
    except OSError as exc:
        _say_once(_unusable(folder, exc))
        return None
    return folder


def _unusable(folder: Path, exc: OSError) -> str:
    """The warning for a folder that cannot be made or used, the same words whether it
    was being made (a store) or read (a load)."""
    why = f"{folder} cannot be made or used ({exc.strerror})" if exc.strerror else str(exc)
    return f"portgemm: programs are not cached on disk: {why}"


@functools.lru_cache(maxsize=None)
def _say_once(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=4)


def load(device, source: str, options: Sequence[str]) -> bytes | None:
    folder = usable_folder(source)
    if folder is None:
        return None
    path = folder / (program_key(device, source, options) + SUFFIX)
    try:
        binary = path.read_bytes()
    except OSError:
        return None
    try:
        os.utime(path)  # used now: the last to go when the folder is trimmed
    except OSError:  # a folder the user may read but not write: it is never trimmed either
        pass
    return binary


def store(device, source: str, options: Sequence[str], binary: bytes) -> None:
    """Keep ``binary``; a folder that cannot be written only means no disk cache."""
    folder = usable_folder(source, make=True) if binary else None
    if folder is None:
        return
    try:
        write_atomically(folder / (program_key(device, source, options) + SUFFIX), binary)
        trim(folder)
    except OSError:  # a full disk leaves no half-written file (write_atomically)
        pass


def trim(folder: Path, limit: int = CACHE_BYTES) -> None:
    """Delete the programs used longest ago while the folder holds more than ``limit``
    bytes, down to three quarters of it (so the next stores do not trim again at once),
    and temporaries STALE_TEMPORARY_S old."""
    files = []
    stale = time.time() - STALE_TEMPORARY_S
    for entry in os.scandir(folder):
        if not is_program_file(entry.name):
            continue
        try:
            info = entry.stat()
        except OSError:  # removed meanwhile (another process trimming)
            continue
        if entry.name.endswith(SUFFIX):
            files.append((info.st_mtime_ns, info.st_size, entry.path))
        elif info.st_mtime < stale:  # a write that never finished: its process was killed
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    total = sum(size for _, size, _ in files)
    if total <= limit:
        return
    for _, size, path in sorted(files):
        if total <= limit * 3 // 4:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size


def forget(device, source: str, options: Sequence[str]) -> None:
    folder = cache_folder()
    if folder is not None:
        try:
            (folder / (program_key(device, source, options) + SUFFIX)).unlink()
        except OSError:
            pass


def clear_disk_cache() -> None:
    """Delete the programs of the folder (:func:`is_program_file`), and the folder where
    that leaves it empty; with the cache off, those of the default folder (earlier runs
    kept theirs there)."""
    folder = cache_folder()
    if folder is None:
        folder = user_cache_folder() / "programs"
    if not folder.is_dir():
        return
    for entry in os.scandir(folder):
        if is_program_file(entry.name):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty
