"""Every process-level cache of portgemm, registered in one place.

A module that remembers something for the life of the process makes its cache here --
``@memoize`` for a function, :func:`cache_dict` for a mapping, or :func:`register` for
anything else with a way to empty it -- so that :func:`clear_caches` (public as
``portgemm.clear_caches()``) forgets all of it: devices enumerated, queues and their
built programs, database reads, choices of ``variant="auto"``, launch plans.

Not caches, so not cleared: the OpenCL driver registration (the ICD loader reads it once
per process) and the host worker threads. Built programs on disk (:mod:`portgemm.runtime
.program_cache`, and numba's for the host backend, :mod:`portgemm.backends.jit`) outlive
the process on purpose; ``clear_caches(disk=True)`` removes them too.
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

_clearers: dict[str, Callable[[], None]] = {}
_lock = threading.Lock()


def register(name: str, clear: Callable[[], None]) -> None:
    """Add a cache under a unique ``name`` (module.function, say) and its clear function."""
    with _lock:
        _clearers[name] = clear


def memoize(function: F | None = None, *, maxsize: int | None = None):
    """``functools.lru_cache``, registered: ``@memoize`` or ``@memoize(maxsize=256)``."""
    def wrap(fn: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        register(f"{fn.__module__}.{fn.__qualname__}", cached.cache_clear)
        return cached
    return wrap(function) if function is not None else wrap


def cache_dict(name: str) -> dict:
    """A new dict registered as a cache under ``name``."""
    found: dict = {}
    register(name, found.clear)
    return found


def registered() -> list[str]:
    """The names of every cache registered so far (modules register when imported)."""
    with _lock:
        return sorted(_clearers)


def clear_caches(disk: bool = False) -> None:
    """Forget everything portgemm remembers in this process; ``disk=True`` also deletes
    what it compiled onto disk (OpenCL programs, the host backend's numba kernels).
    Arrays and results already returned stay valid; device arrays made before are of
    portgemm's old OpenCL context, so a call mixing them with ones made after raises
    ParameterError (make them again with ``to_device``)."""
    if not isinstance(disk, bool):  # disk="no" would delete, being a true string
        raise TypeError(f"disk must be True or False, got {disk!r}")
    with _lock:
        clearers = list(_clearers.values())
    for clear in clearers:
        clear()
    if disk:
        import shutil

        from .backends.jit import numba_cache_dir
        from .runtime.program_cache import clear_disk_cache

        clear_disk_cache()
        shutil.rmtree(numba_cache_dir(), ignore_errors=True)
