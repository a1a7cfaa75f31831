"""OpenMP-style ``parallel_for``: a loop body on a persistent pool of threads, with
OpenMP's loop schedules (static, dynamic, guided, auto, runtime), knowing nothing of GEMM.

The body receives index *ranges*, ``body(start, stop)``, not single indices: one
Python call per index would cost more than a useful piece of work, and kernels want a
range anyway. Bodies that release the GIL (numba ``nogil`` kernels, numpy) run truly in
parallel; :mod:`portgemm.backends.threads` builds the threaded GEMM on this.
"""

from __future__ import annotations

import functools
import math
import os
import queue
import threading
from typing import Callable, Iterator

import numpy as np

from .errors import ParameterError

__all__ = [
    "SCHEDULES",
    "default_num_threads",
    "parallel_for",
    "parse_schedule",
    "resolve_loop",
    "runtime_schedule",
    "schedule_pieces",
]

SCHEDULES = ("static", "dynamic", "guided", "auto", "runtime")
SCHEDULE_ENV = "PORTGEMM_SCHEDULE"
NUM_THREADS_ENV = "PORTGEMM_NUM_THREADS"

Piece = tuple[int, int]


# ------------------------------------------------------------------ configuration


def parse_schedule(text: str) -> tuple[str, int | None]:
    """Parse an OMP_SCHEDULE-style value, ``kind[,chunk]``, into ``(kind, chunk)``.

    kind is static, dynamic, guided or auto (any case); an OpenMP modifier such
    as ``monotonic:`` is accepted and ignored. ``chunk`` is None when absent.
    """
    body = text.strip().lower()
    modifier, colon, rest = body.partition(":")
    if colon:
        if modifier.strip() not in ("monotonic", "nonmonotonic"):
            raise ParameterError(
                f"unknown schedule modifier {modifier.strip()!r}; valid: monotonic, nonmonotonic"
            )
        body = rest
    kind, comma, chunk_text = body.partition(",")
    kind = kind.strip()
    if kind not in ("static", "dynamic", "guided", "auto"):
        raise ParameterError(
            f"unknown schedule {kind!r} in {text!r}; valid kinds: static, dynamic, guided, auto"
        )
    if not comma:
        return kind, None
    try:
        chunk = int(chunk_text)
    except ValueError:
        raise ParameterError(f"chunk in schedule {text!r} must be an integer >= 1") from None
    return kind, _check_chunk(chunk)


def runtime_schedule() -> tuple[str, int | None]:
    """The schedule that ``schedule="runtime"`` means now: PORTGEMM_SCHEDULE, else static."""
    text = os.environ.get(SCHEDULE_ENV, "").strip()
    if not text:
        return "static", None
    try:
        return parse_schedule(text)
    except ParameterError as exc:
        raise ParameterError(f"{SCHEDULE_ENV}={text!r}: {exc}") from None


def default_num_threads() -> int:
    """PORTGEMM_NUM_THREADS if set, else the CPUs this process may run on."""
    text = os.environ.get(NUM_THREADS_ENV, "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise ParameterError(f"{NUM_THREADS_ENV}={text!r} must be an integer >= 1")
        return value
    try:
        return len(os.sched_getaffinity(0))  # honours taskset/cgroup CPU masks
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_chunk(chunk) -> int | None:
    if chunk is None:
        return None
    if not is_int(chunk) or chunk < 1:
        raise ParameterError(f"chunk must be None or an integer >= 1, got {chunk!r}")
    return int(chunk)


def resolve_loop(n, schedule, chunk, num_threads) -> tuple[int, str, int | None, int]:
    """Validate loop arguments; return (n, concrete kind, chunk, thread count)."""
    if not is_int(n):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    if n < 0:
        raise ParameterError(f"n must be >= 0, got {n}")
    if schedule not in SCHEDULES:
        raise ParameterError(f"unknown schedule {schedule!r}; valid: {', '.join(SCHEDULES)}")
    chunk = _check_chunk(chunk)
    if num_threads is None:
        num_threads = default_num_threads()
    elif not is_int(num_threads) or num_threads < 1:
        raise ParameterError(f"num_threads must be None or an integer >= 1, got {num_threads!r}")
    if schedule == "runtime":
        if chunk is not None:  # as in OpenMP, where schedule(runtime) takes no chunk
            raise ParameterError(
                f"chunk cannot be combined with schedule='runtime'; set it in {SCHEDULE_ENV}, e.g. 'dynamic,4'"
            )
        schedule, chunk = runtime_schedule()
    if schedule == "auto":  # OpenMP leaves auto to the implementation; ours is static
        schedule = "static"
    return int(n), schedule, chunk, int(num_threads)


# ------------------------------------------------------------------------ planning


def schedule_pieces(n: int, schedule: str = "static", chunk: int | None = None,
                    num_threads: int | None = None) -> list:
    """The (start, stop) pieces that ``parallel_for`` would run, without running them.

    static (and auto, and runtime resolving to either) returns one list per
    thread, because static assignment is fixed in advance: without ``chunk``
    thread t gets one contiguous block, the blocks differing in size by at most
    one; with ``chunk``, chunk-sized pieces are dealt round-robin.

    dynamic and guided return the piece sequence in the order threads take the
    pieces from the shared queue; which thread takes which is decided at run
    time. dynamic pieces have ``chunk`` (default 1) indices; guided pieces have
    ``max(chunk or 1, ceil(remaining / num_threads))``, so they shrink as the
    loop drains and only the last one may be shorter than ``chunk``.
    """
    n, schedule, chunk, num_threads = resolve_loop(n, schedule, chunk, num_threads)
    return _plan(n, schedule, chunk, num_threads)


def _plan(n: int, schedule: str, chunk: int | None, num_threads: int) -> list:
    """schedule_pieces' lists, made from :func:`_lazy_plan`."""
    plan = _lazy_plan(n, schedule, chunk, num_threads)
    return [list(pieces) for pieces in plan] if schedule == "static" else list(plan)


def _lazy_plan(n: int, schedule: str, chunk: int | None, num_threads: int):
    """The pieces as they are taken, not made up front (10^7 dynamic pieces once took
    11 s and 1.4 GB before the first ran): static, one iterable a thread; else one
    iterator the threads share."""
    if schedule == "static":
        if chunk is None:
            base, extra = divmod(n, num_threads)
            plan, start = [], 0
            for t in range(num_threads):
                stop = start + base + (t < extra)
                plan.append([(start, stop)] if stop > start else [])
                start = stop
            return plan
        return [_range_pieces(n, chunk, t * chunk, num_threads * chunk)
                for t in range(num_threads)]
    if schedule == "dynamic":
        return _range_pieces(n, chunk or 1)
    return _guided_pieces(n, chunk or 1, num_threads)


def _range_pieces(n: int, size: int, first: int = 0,
                  step: int | None = None) -> Iterator[Piece]:
    """(start, start + size) pieces of range(n) from ``first``, every ``step``-th index
    (default: ``size``, so contiguous), the last one cut at n."""
    return ((start, min(n, start + size)) for start in range(first, n, step or size))


def _guided_pieces(n: int, smallest: int, num_threads: int) -> Iterator[Piece]:
    start = 0
    while start < n:
        stop = min(n, start + max(smallest, math.ceil((n - start) / num_threads)))
        yield start, stop
        start = stop


# ---------------------------------------------------------------------- execution


class _Workers:
    """Persistent worker threads, started on first need and kept for the process.

    Team member t >= 1 always runs on worker t - 1, so a static schedule puts
    the same pieces on the same thread call after call (its cache and the pages
    it touched first stay with it), and each member has a thread of its own.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._inboxes: list[queue.SimpleQueue] = []

    def inboxes(self, count: int) -> list[queue.SimpleQueue]:
        with self._lock:
            while len(self._inboxes) < count:
                inbox = queue.SimpleQueue()
                name = f"portgemm-worker-{len(self._inboxes) + 1}"
                threading.Thread(target=self._serve, args=(inbox,), name=name, daemon=True).start()
                self._inboxes.append(inbox)
            return self._inboxes[:count]

    @staticmethod
    def _serve(inbox: queue.SimpleQueue) -> None:
        while True:
            inbox.get()()


    def forget(self) -> None:
        """In a forked child: the inboxes' threads stayed in the parent (a fork copies
        only the forking thread), so pieces put there would wait for good; new workers
        start on the next call."""
        self._lock = threading.Lock()
        self._inboxes = []


_workers = _Workers()
_region = threading.local()  # .active is True on a thread while it runs a loop body
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_workers.forget)


class _Failure:
    """The first exception raised by any body; its presence cancels the other pieces."""

    def __init__(self):
        self._lock = threading.Lock()
        self.error: BaseException | None = None

    def record(self, exc: BaseException) -> None:
        with self._lock:
            if self.error is None:
                self.error = exc


def parallel_for(n: int, body: Callable[[int, int], object], *, schedule: str = "static",
                 chunk: int | None = None, num_threads: int | None = None) -> None:
    """Run ``body(start, stop)`` over ``range(n)`` on up to ``num_threads`` threads.

    Like ``#pragma omp parallel for schedule(kind, chunk) num_threads(t)``, except
    that the body gets a half-open index range and must handle every index in
    it; across all calls each index of ``range(n)`` is covered exactly once.
    Pieces are those of :func:`schedule_pieces`. The calling thread works as
    team member 0, so at most ``num_threads`` distinct threads call ``body``.

    num_threads defaults to PORTGEMM_NUM_THREADS, else the usable CPU count.
    schedule is static, dynamic, guided, auto (= static) or runtime (read from
    PORTGEMM_SCHEDULE, formatted like OMP_SCHEDULE, e.g. ``"dynamic,4"``).

    If a body raises, pieces not yet started are skipped, running ones finish,
    and the first exception is re-raised here. A ``parallel_for`` called from
    inside a body runs on the calling thread alone (like OpenMP with nested
    parallelism off), which also rules out deadlock on the shared workers.
    """
    n, schedule, chunk, num_threads = resolve_loop(n, schedule, chunk, num_threads)
    if not callable(body):
        raise TypeError("body must be callable as body(start, stop)")
    if n == 0:
        return
    if getattr(_region, "active", False):
        num_threads = 1
    plan = _lazy_plan(n, schedule, chunk, num_threads)

    if schedule == "static":
        # threads with a piece: the first ones (n < threads x chunk leaves the rest none)
        member_count = min(num_threads, math.ceil(n / chunk) if chunk else n)
        iterators = [iter(pieces) for pieces in plan[:member_count]]

        def next_piece(member: int):
            return next(iterators[member], None)
    else:
        # (guided makes at least this many pieces, or a member finds none and stops)
        member_count = min(num_threads, math.ceil(n / (chunk or 1)))
        shared, shared_lock = plan, threading.Lock()

        def next_piece(member: int):
            with shared_lock:  # explicit, so it stays safe without a GIL
                return next(shared, None)

    if member_count == 1:
        _run_member(0, next_piece, body, None)
        return

    failure = _Failure()
    finished = queue.SimpleQueue()

    def pool_member(member: int) -> None:
        try:
            _run_member(member, next_piece, body, failure)
        finally:
            finished.put(member)

    for member, inbox in enumerate(_workers.inboxes(member_count - 1), start=1):
        inbox.put(functools.partial(pool_member, member))
    try:
        _run_member(0, next_piece, body, failure)
    finally:
        for _ in range(member_count - 1):  # no body may still run once we return
            finished.get()
    if failure.error is not None:
        raise failure.error


def _run_member(member: int, next_piece, body, failure: _Failure | None) -> None:
    """Run pieces until the plan is drained or another member has failed."""
    was_active = getattr(_region, "active", False)
    _region.active = True
    try:
        while failure is None or failure.error is None:
            piece = next_piece(member)
            if piece is None:
                return
            body(*piece)
    except BaseException as exc:
        if failure is None:  # running alone: the caller's thread raises directly
            raise
        failure.record(exc)
    finally:
        _region.active = was_active
