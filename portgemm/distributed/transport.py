"""Every MPI call the partitions make, timed as communication, with a choice of waiting.

MPICH busy-polls while a blocking call waits. Where ranks share cores (4 ranks on a
2-core machine, or a master that only waits), a spinning rank takes the core from a rank
that computes, so by default ("yield") a rank waits by polling with short, growing
sleeps: a point-to-point message is posted non-blocking and polled; a collective first
waits, polling, in a non-blocking barrier until every rank of the communicator has
arrived, then runs as the blocking call. Polling a non-blocking collective instead would
slow the transfer itself: MPICH moves a large scatter or gather in many pieces, each
only when the rank calls into MPI, so every sleep between polls would delay one piece
(measured: ``rows`` on 4 ranks at 1024^3, a 21 MB packed scatter and a gather, spent
180 ms communicating instead of 27 ms).
"spin" uses the blocking calls only, for clusters with a core per rank where the last
microseconds matter. ``PORTGEMM_MPI_WAIT`` sets the default.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from .clock import Clock

WAITS = ("yield", "spin")
WAIT_ENV = "PORTGEMM_MPI_WAIT"
_LONGEST_NAP = 5e-4  # s: the most a finished transfer is noticed late


def check_wait(wait: str | None = None) -> str:
    """The waiting ``wait`` names (None: ``$PORTGEMM_MPI_WAIT``, else "yield");
    ValueError for another (a call's opening check makes it an agreed PartitionError)."""
    chosen = wait or os.environ.get(WAIT_ENV, "").strip() or "yield"  # empty: unset
    if chosen not in WAITS:
        said = f"wait={wait!r}" if wait else f"{WAIT_ENV}={chosen!r}"
        raise ValueError(f"{said}; use one of {', '.join(WAITS)}")
    return chosen


def wait_for(request: Any) -> None:
    """Poll until ``request`` completes, sleeping a little longer each time (MPI makes
    progress inside Test, so the transfer itself is not slowed, only noticed later)."""
    nap = 0.0
    while not request.Test():
        if nap:
            time.sleep(nap)
        nap = min(max(2 * nap, 1e-5), _LONGEST_NAP)


class Transport:
    """One communicator's operations, each counted in ``clock.comm_ms``. Buffers are
    contiguous numpy arrays; their sizes are known on every rank beforehand (the layout
    is arithmetic on the agreed shape), so no size ever travels separately."""

    def __init__(self, comm: Any, clock: Clock, wait: str | None = None):
        self.comm = comm
        self.clock = clock
        self.wait = check_wait(wait)
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    def on(self, comm: Any) -> Transport:
        """The same clock and waiting on another communicator (a SUMMA row or column)."""
        return Transport(comm, self.clock, self.wait)

    def _message(self, blocking, nonblocking, *args, **kwargs) -> None:
        with self.clock.comm():
            if self.wait == "spin":
                blocking(*args, **kwargs)
            else:
                wait_for(nonblocking(*args, **kwargs))

    def _collective(self, blocking, *args, **kwargs) -> Any:
        with self.clock.comm():
            if self.wait == "yield" and self.size > 1:
                wait_for(self.comm.Ibarrier())  # everyone is here: the call will not wait
            return blocking(*args, **kwargs)

    # --- point to point ------------------------------------------------------------
    def send(self, array: np.ndarray, dest: int, tag: int) -> None:
        self._message(self.comm.Send, self.comm.Isend, _contiguous(array), dest=dest,
                      tag=tag)

    def recv(self, array: np.ndarray, source: int, tag: int) -> None:
        self._message(self.comm.Recv, self.comm.Irecv, array, source=source, tag=tag)

    # --- collectives on buffers ----------------------------------------------------
    def bcast(self, array: np.ndarray, root: int) -> None:
        if self.size > 1:
            self._collective(self.comm.Bcast, array, root=root)

    def scatter(self, send: Any, recv: Any, root: int) -> None:
        self._collective(self.comm.Scatter, send, recv, root=root)

    def gather(self, send: Any, recv: Any, root: int) -> None:
        self._collective(self.comm.Gather, send, recv, root=root)

    def allreduce(self, array: np.ndarray) -> np.ndarray:
        """The elementwise sum over ranks, in place."""
        if self.size > 1:
            mpi = _mpi()
            self._collective(self.comm.Allreduce, mpi.IN_PLACE, array, op=mpi.SUM)
        return array

    def barrier(self) -> None:
        if self.wait == "yield":
            with self.clock.comm():
                wait_for(self.comm.Ibarrier())
        else:
            self._collective(self.comm.Barrier)

    # --- non-blocking broadcasts and barriers (resident SUMMA: several at once) -------
    def start_bcast(self, array: np.ndarray, root: int) -> Any:
        """Post a broadcast of ``array`` (contiguous) and return its request; the caller
        times it and completes it with :meth:`wait_all`."""
        return self.comm.Ibcast(array, root=root)

    def start_barrier(self) -> Any:
        """Post a barrier and return its request (completed with :meth:`wait_all`)."""
        return self.comm.Ibarrier()

    @staticmethod
    def wait_all(requests: list) -> None:
        """Complete the requests, blocking inside MPI (which moves their data only while a
        rank is inside it; see :func:`wait_for_all` for arriving without spinning)."""
        if requests:
            _mpi().Request.Waitall(requests)

    # --- small Python objects (mpi4py pickles them; it has no non-blocking form) ------
    def allgather_object(self, obj: Any) -> list:
        return self._collective(self.comm.allgather, obj)

    def gather_object(self, obj: Any, root: int) -> list | None:
        return self._collective(self.comm.gather, obj, root=root)


def wait_for_all(transports: list[Transport]) -> None:
    """Before collectives on several communicators that then block: with yielding waits,
    wait (polling) until every rank of each has arrived, as :meth:`Transport._collective`
    does for one. The barriers are posted together, so their order does not matter."""
    unique = list({id(t.comm): t for t in transports if t.size > 1}.values())
    if not unique or unique[0].wait != "yield":
        return
    requests = [t.comm.Ibarrier() for t in unique]
    with unique[0].clock.comm():
        for request in requests:
            wait_for(request)


def _contiguous(array: np.ndarray) -> np.ndarray:
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def _mpi():
    from .mpi import load_mpi
    return load_mpi()
