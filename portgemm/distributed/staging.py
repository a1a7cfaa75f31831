"""Host memory where resident SUMMA's panels wait between two ranks' devices.

Two routes, ``$PORTGEMM_MPI_ROUTE``:

* ``mpi``: the owner downloads a panel into its pinned memory, MPI broadcasts it, and
  each receiver uploads it from its own pinned memory. Works between any ranks; between
  processes of one host MPICH copies through small shared cells (3.7-4.5 GB/s between
  two H200 ranks: the whole exchange of a 2-GPU SUMMA took longer than its products).
* ``shared`` (the default): when every rank of a communicator is on one node, they map
  one MPI-3 shared-memory window. The owner downloads straight into it, a barrier says
  the chunk is there, and the others upload straight from it: one copy over each bus and
  none through MPI. Each rank also wraps the window in a ``USE_HOST_PTR`` buffer of its
  OpenCL context and keeps it: NVIDIA's driver pins the pages it is given, so the copies
  to and from the window then run by DMA (two H200s: 27 GB/s each way for a whole
  exchange, against 3.8 through MPI and 6-11 from unpinned memory;
  ``bench/gpu/shm_probe.py``). Other drivers copy at their pageable speed; devices that
  share host memory (CPU runtimes) are not handed the window at all. Communicators
  that span nodes take the ``mpi`` route.

A window lives for the process (reused by every later call with the same ranks, grown
when a call needs more) because making and pinning one costs more than a call's
exchange. Whether to reuse is agreed on the communicator, so ranks never disagree.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..backends.transfers import shares_host_memory
from .mpi import load_mpi

ROUTE_ENV = "PORTGEMM_MPI_ROUTE"
ROUTES = ("shared", "mpi")

# Not a registered cache: a window is freed by a collective call, so clear_caches() on
# some ranks only would leave the others waiting; :func:`shared_window` agrees on reuse.
# (world ranks of the members) -> Window
_windows: dict[tuple[int, ...], Window] = {}


CHUNK_ENV = "PORTGEMM_MPI_CHUNK_BYTES"
CHUNK_BYTES = 32 * 2**20


def chunk_bytes() -> int:
    """Bytes of one staged chunk (``$PORTGEMM_MPI_CHUNK_BYTES``, at least one row);
    ValueError for a value that is no positive integer (a call's opening check makes it
    an agreed PartitionError: it was a traceback from the middle of a run)."""
    value = os.environ.get(CHUNK_ENV, "").strip()
    if not value:
        return CHUNK_BYTES
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{CHUNK_ENV}={value!r}; use a number of bytes >= 1, such as "
                         f"{CHUNK_BYTES}")
    return int(value)


def route() -> str:
    value = os.environ.get(ROUTE_ENV, "shared").strip() or "shared"
    if value not in ROUTES:
        raise ValueError(f"{ROUTE_ENV}={value!r}; use one of {', '.join(ROUTES)}")
    return value


class Window:
    """One MPI-3 shared-memory window of ``nbytes`` on a node's communicator, mapped by
    every member (rank 0 of it allocates all of it), and the buffers that pin it in each
    OpenCL context that used it."""

    def __init__(self, comm: Any, nbytes: int):
        mpi = load_mpi()
        self.win = mpi.Win.Allocate_shared(nbytes if comm.Get_rank() == 0 else 0, 1,
                                           comm=comm)
        memory, _ = self.win.Shared_query(0)
        self.memory = np.frombuffer(memory, np.uint8)
        self.nbytes = nbytes
        self._pins: dict[Any, Any] = {}

    def pin(self, context: Any) -> None:
        """Hand the window to ``context`` as a USE_HOST_PTR buffer (kept): a driver that
        pins such memory then copies to and from it by DMA. Not on devices that share
        host memory (CPU runtimes): nothing to gain, and a runtime that wants another
        alignment would make a copy of the whole window."""
        if context in self._pins:
            return
        import pyopencl as cl

        if all(shares_host_memory(d) for d in context.devices):
            self._pins[context] = None
            return
        try:
            self._pins[context] = cl.Buffer(
                context, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR,
                hostbuf=self.memory)
        except cl.Error:  # the driver would not: copies run at its pageable speed
            self._pins[context] = None

    def view(self, dtype: Any, count: int) -> np.ndarray:
        return self.memory[:count * np.dtype(dtype).itemsize].view(dtype)

    def free(self) -> None:
        self._pins.clear()
        self.memory = None
        self.win.Free()


def shared_window(comm: Any, nbytes: int, context: Any) -> Window | None:
    """A shared window of at least ``nbytes`` for the members of ``comm``, pinned in
    ``context``; None when the route is ``mpi``, when ``comm`` has one rank or spans more
    than one node. Collective on ``comm``."""
    mpi = load_mpi()
    if comm.Get_size() == 1:
        return None
    node = comm.Split_type(mpi.COMM_TYPE_SHARED, key=comm.Get_rank())
    try:
        if node.Get_size() != comm.Get_size():  # spans nodes: every member sees it so
            return None
        # agreed on the communicator: the route (any rank saying mpi wins) and the size
        wanted = nbytes if route() == "shared" else -1
        low, need = node.allreduce(wanted, op=mpi.MIN), node.allreduce(wanted, op=mpi.MAX)
        if low < 0 or need == 0:
            return None
        key = tuple(comm.Get_group().Translate_ranks(
            list(range(comm.Get_size())), mpi.COMM_WORLD.Get_group()))
        window = _windows.get(key)
        have = window.nbytes if window is not None else 0
        low, high = node.allreduce(have, op=mpi.MIN), node.allreduce(have, op=mpi.MAX)
        if low != high:  # ranks disagree (should not happen): start a new one everywhere
            _windows.pop(key, None)  # dropped unfreed where it existed
            window = None
        elif window is not None and have < need:
            _windows.pop(key).free()  # every member holds it: freed together
            window = None
        if window is None:
            window = _windows[key] = Window(node, need)
        window.pin(context)
        return window
    finally:
        node.Free()
