"""GEMM over MPI (mpi4py): the partitions p2p, rows, 2d, summa and splitk.

Being written; see the issue "Beyond one machine".
"""
