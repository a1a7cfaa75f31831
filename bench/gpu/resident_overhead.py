"""The cost of one resident call beyond its kernel: matmul on device arrays at 64^3 (kernel
time ~ nothing), and at 4096^3 its wall time against its kernel time.

    python3 bench/gpu/resident_overhead.py
"""

import statistics
import time

import numpy as np

import portgemm

device = portgemm.select_device("gpu")
for n in (64, 4096):
    a = portgemm.to_device(np.random.default_rng(0).random((n, n), np.float32), device)
    walls, kernels = [], []
    for i in range(60):
        start = time.perf_counter()
        result = portgemm.gemm(a, a)
        if i >= 10:
            walls.append((time.perf_counter() - start) * 1e3)
            kernels.append(result.kernel_ms)
    wall, kernel = statistics.median(walls), statistics.median(kernels)
    print(f"{n}^3 resident: wall {wall:.3f} ms, kernel {kernel:.3f} ms, wall - kernel "
          f"{wall - kernel:.3f} ms ({wall / kernel - 1:.1%} over)")
