"""whole matmul calls on stacks of pairs (no side by side there): median of 5 rounds of best-of-3"""
import time
import numpy as np
import portgemm
cases = [((64, 100, 100), (64, 100, 100)), ((32, 104, 104), (32, 104, 104)),
         ((100, 37, 50), (100, 50, 20)), ((16, 200, 70), (16, 70, 150)), ((64, 64, 64), (64, 64, 64))]
dev = portgemm.select_device("intel")
rng = np.random.default_rng(0)
for sa, sb in cases:
    a = rng.standard_normal(sa).astype(np.float32); b = rng.standard_normal(sb).astype(np.float32)
    c = portgemm.matmul(a, b, device=dev)
    err = np.abs(c - np.matmul(a.astype(np.float64), b)).max()
    rounds = []
    for _ in range(5):
        time.sleep(0.15)
        best = min((lambda s: (portgemm.matmul(a, b, device=dev), time.perf_counter() - s)[1])(time.perf_counter()) for _ in range(3))
        rounds.append(best * 1e3)
    print(f"{sa} @ {sb}: {np.median(rounds):.3f} ms (max abs err {err:.1e})", flush=True)
