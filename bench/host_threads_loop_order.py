"""The threaded path's micro-kernel at 2048 on 1 and 2 threads: the tile loop as shipped
(4 rows of A held while 6 rows of B^T stream) against the loops swapped (B^T's 6 rows
held in L1 while A's rows stream from L2), and numpy, in interleaved rounds.

    env -u OPENBLAS_CORETYPE PYTHONPATH=. python bench/host_threads_loop_order.py
    # with 512-bit vectors (numba/LLVM prefer 256-bit ones on this CPU; process-wide):
    LL="import llvmlite.binding as ll; ll.initialize_native_target()"
    CPU=$(python -c "$LL; print(ll.get_host_cpu_name())")
    F=$(python -c "$LL; print(ll.get_host_cpu_features().flatten())")
    NUMBA_CPU_NAME=$CPU NUMBA_CPU_FEATURES="$F,-prefer-256-bit" PYTHONPATH=. \
        python bench/host_threads_loop_order.py
"""
import time

import numpy as np

from portgemm import parallel
from portgemm.backends import threads as T
from portgemm.backends.serial import jit_kernel

@jit_kernel
def rows_jfirst(a, bt, c, i0, i1, k0, k1):
    """threads._accumulate_rows with the two tile loops swapped."""
    n = bt.shape[0]
    panel_k = T.PANEL_BYTES // a.itemsize
    for kp in range(k0, k1, panel_k):
        kq = min(k1, kp + panel_k)
        for ip in range(i0, i1, T.ROW_BLOCK):
            iq = min(i1, ip + T.ROW_BLOCK)
            i_tiled = ip + (iq - ip) // T.TILE_M * T.TILE_M
            for jp in range(0, n, T.PANEL_N):
                jq = min(n, jp + T.PANEL_N)
                j_tiled = jp + (jq - jp) // T.TILE_N * T.TILE_N
                for j in range(jp, j_tiled, T.TILE_N):
                    for i in range(ip, i_tiled, T.TILE_M):
                        T._tile_4x6(a, bt, c, i, j, kp, kq)
                for i in range(ip, i_tiled, T.TILE_M):
                    for j in range(j_tiled, jq):
                        for ii in range(i, i + T.TILE_M):
                            T._dot_element(a, bt, c, ii, j, kp, kq)
                for i in range(i_tiled, iq):
                    for j in range(jp, jq):
                        T._dot_element(a, bt, c, i, j, kp, kq)

n = 2048
rng = np.random.default_rng(0)
a = rng.random((n, n), np.float32); b = rng.random((n, n), np.float32)
bt = np.ascontiguousarray(b.T)
def run(fn, threads):
    c = np.zeros((n, n), np.float32)
    blocks = n // 64
    parallel.parallel_for(blocks, lambda s, e: fn(a, bt, c, s * 64, e * 64, 0, n), schedule="static", num_threads=threads)
    return c
ref = a.astype(np.float64) @ b
for fn in (T._accumulate_rows, rows_jfirst):
    c = run(fn, 1); assert np.allclose(c, ref, rtol=1e-4)
res = {}
for rnd in range(3):
    for name, fn in (("i then j (now)", T._accumulate_rows), ("j then i", rows_jfirst)):
        for th in (1, 2):
            s = time.perf_counter(); run(fn, th); t = time.perf_counter() - s
            res.setdefault((name, th), []).append(t)
    s = time.perf_counter(); a @ b; res.setdefault(("numpy", 0), []).append(time.perf_counter() - s)
for k, v in res.items():
    print(k, f"{2*n**3/min(v)/1e9:.1f} GFLOPS")
