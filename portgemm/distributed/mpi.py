"""mpi4py, loaded only when a distributed entry point is used.

``import portgemm.distributed`` must work without mpi4py (the package is an optional
extra), and importing ``mpi4py.MPI`` initialises MPI, which nothing should do by accident.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import BackendUnavailableError

INSTALL = 'pip install "portgemm[mpi]"'


def load_mpi() -> Any:
    """The ``mpi4py.MPI`` module; BackendUnavailableError naming the install if absent."""
    try:
        return importlib.import_module("mpi4py.MPI")
    except ImportError as exc:
        raise BackendUnavailableError(
            f"distributed GEMM needs mpi4py and an MPI runtime: {INSTALL} "
            f"(brings mpi4py and the mpich wheel with mpiexec); import failed: {exc}") from exc


def world(comm: Any = None) -> Any:
    """``comm``, or MPI.COMM_WORLD when None."""
    return load_mpi().COMM_WORLD if comm is None else comm


# Not a registered cache: it holds the answer of a collective call, and clear_caches() on
# some ranks only would make those ranks alone call it again (a hung job).
_local_ranks: dict[str, tuple[int, int]] = {}


def local_rank(comm: Any) -> tuple[int, int]:
    """(rank among the processes of this node, how many there are), from a split of
    ``comm`` by shared memory; on a node with several GPUs local rank i takes GPU i.

    A collective call on ``comm``; remembered for MPI.COMM_WORLD only (the handle of a
    freed communicator may be reused by another one with other members)."""
    mpi = load_mpi()
    world_comm = comm == mpi.COMM_WORLD
    if world_comm and "world" in _local_ranks:
        return _local_ranks["world"]
    node = comm.Split_type(mpi.COMM_TYPE_SHARED, key=comm.Get_rank())
    found = (node.Get_rank(), node.Get_size())
    node.Free()
    if world_comm:
        _local_ranks["world"] = found
    return found


def mpi_type(dtype) -> Any:
    """The MPI datatype of a numpy dtype (float32 -> MPI.FLOAT, float64 -> MPI.DOUBLE)."""
    from mpi4py.util.dtlib import from_numpy_dtype
    return from_numpy_dtype(dtype)
