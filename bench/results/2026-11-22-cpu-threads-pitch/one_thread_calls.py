"""One thread's gemm_threads call at 2048 (float32), best of 4 after one warm-up, in a
fresh process; prints where A and the packing buffer lie. Run it in several processes:
    for i in $(seq 8); do python one_thread_calls.py; done
"""
import time

import numpy as np

from portgemm.backends import threads

n = 2048
rng = np.random.default_rng(0)
a = rng.standard_normal((n, n), dtype=np.float32)
b = rng.standard_normal((n, n), dtype=np.float32)
threads.gemm_threads(a, b, num_threads=1)
times = []
for _ in range(4):
    start = time.perf_counter()
    threads.gemm_threads(a, b, num_threads=1)
    times.append((time.perf_counter() - start) * 1e3)
print(f"A at {a.ctypes.data % 4096} mod 4096, packing buffer at "
      f"{threads._scratch.buffer.ctypes.data % 4096}: {min(times):.0f} ms "
      f"({2 * n**3 / min(times) / 1e6:.1f} GFLOPS)")
