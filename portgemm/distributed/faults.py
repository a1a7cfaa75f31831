"""A rank that fails must not leave the others waiting: abort the job with its message.

Once the agreement has passed, ranks run the partition's collectives in lock step; an
exception on one of them (a device error, a kernel that fails to build, a bug) would
leave every other rank blocked forever. :func:`abort_on_error` prints the failing
rank's traceback and calls ``Abort`` on the communicator, which ends every process of
the job with that exit code. :class:`Watchdog` does the same after a time limit, for
a job that hangs for a reason nobody raised.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from contextlib import contextmanager
from typing import Any

ABORT_CODE = 3      # a rank failed
TIMEOUT_CODE = 124  # the watchdog fired (the code timeout(1) uses)


# mpiexec forwards the ranks' output asynchronously and drops what it has not read when
# the job is torn down: give it this long to take an abort message before aborting.
_FORWARD_S = 0.5


def say(comm: Any, message: str) -> None:
    """One line (or block) on stderr from this rank, in one write: lines that several
    ranks print at once are not cut into each other by mpiexec's forwarding."""
    text = f"portgemm.distributed: rank {comm.Get_rank()}: {message}\n"
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(2, text.encode(errors="replace"))


def abort(comm: Any, message: str, code: int) -> None:
    """Print ``message`` from this rank and end the whole job (never returns)."""
    say(comm, f"(of {comm.Get_size()}) {message}")
    time.sleep(_FORWARD_S)
    try:
        comm.Abort(code)
    finally:  # Abort does not return; if the MPI library cannot abort, end this process
        os._exit(code)


@contextmanager
def abort_on_error(comm: Any, enabled: bool = True):
    """Run the body; if it raises on this rank, abort the job with the traceback.
    Errors every rank agrees on (``agreed``) pass through: no rank is waiting."""
    if not enabled:
        yield
        return
    try:
        yield
    except BaseException as exc:  # KeyboardInterrupt too: the others would still wait
        if getattr(exc, "agreed", False) or isinstance(exc, SystemExit):
            raise
        abort(comm, "failed, aborting the job:\n" + traceback.format_exc().rstrip(),
              ABORT_CODE)


class Watchdog:
    """Abort the job if it is still running ``seconds`` after :meth:`start`."""

    def __init__(self, comm: Any, seconds: float | None):
        self.comm = comm
        self.seconds = seconds
        self._timer: threading.Timer | None = None

    def _fire(self) -> None:
        abort(self.comm, f"timed out after {self.seconds:g} s (--timeout), aborting the "
                         f"job", TIMEOUT_CODE)

    def start(self) -> Watchdog:
        if self.seconds:
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True  # never keeps a finished process alive
            self._timer.start()
        return self

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def __enter__(self) -> Watchdog:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
