"""GEMM over MPI (mpi4py): the partitions p2p, rows, 2d, summa and splitk.

Every rank of a communicator calls the same function; each computes its local products
through portgemm itself, on a backend, device and variant of its own (``local=``; by
default local rank i of a node takes GPU i, else the default device)::

    from portgemm import distributed
    r = distributed.gemm(a, b, "2d")                  # A, B given on rank 0; C on rank 0
    r.c, r.comm_ms, r.compute_ms, r.total_ms

    layout = distributed.block_layout(m, n, k, comm.size)   # operands already in place:
    r = distributed.gemm_blocks(a[layout.a_block(rank)], b[layout.b_block(rank)],
                                (m, n, k), "summa")    # r.c is C[layout.c_block(rank)]

    a_dev = portgemm.to_device(a[layout.a_block(rank)])     # resident on the device:
    b_dev = portgemm.to_device(b[layout.b_block(rank)])     # r.c is a device array too
    r = distributed.gemm_blocks(a_dev, b_dev, (m, n, k), "summa")

Partitions (``PARTITIONS``): ``p2p`` seed 002's master/worker with sends and receives;
``rows`` its collective 1-D row partition (one packed Scatter, one Gather); ``2d`` its
2-D partition on the grid of the largest divisor of P <= sqrt(P); ``summa`` SUMMA on
that grid, owner computes; ``splitk`` K split across ranks, C summed by an allreduce.
``gemm_blocks`` takes rows, 2d, summa and splitk from blocks already on their ranks, as
numpy arrays or as device arrays that stay on the device (:mod:`.resident`).
Any shape and any number of ranks. Bad input raises the same error on every rank; a rank
failing later aborts the job (see :mod:`.faults`). ``python -m portgemm.distributed``
compares the partitions; docs/distributed.md has the algorithms and the cost model.

mpi4py is imported only when a function here is called; without it they raise
BackendUnavailableError naming ``pip install "portgemm[mpi]"``.
"""

from .api import BLOCK_PARTITIONS, PARTITIONS, block_layout, gemm, gemm_blocks
from .errors import (
           AgreedError,
           OperandTypeError,
           PartitionError,
           RankSetupError,
           ShapeError,
)
from .faults import Watchdog, abort_on_error
from .layout import BlockLayout, process_grid
from .local import LocalOptions
from .result import DistributedResult

__all__ = [
           "BLOCK_PARTITIONS",
           "PARTITIONS",
           "AgreedError",
           "BlockLayout",
           "DistributedResult",
           "LocalOptions",
           "OperandTypeError",
           "PartitionError",
           "RankSetupError",
           "ShapeError",
           "Watchdog",
           "abort_on_error",
           "block_layout",
           "gemm",
           "gemm_blocks",
           "process_grid",
]
