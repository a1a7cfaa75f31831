"""Whole matmul calls on stacks whose matrices are not a multiple of 16 values, beside
numpy in turns: median of 5 rounds of best-of-3 a side, each after a 0.15 s pause.
    PYTHONPATH=<checkout> python stacks.py"""
import time

import numpy as np

import portgemm

CASES = [((34, 297, 1354), (34, 1354, 2)), ((1, 1437), (262, 1437, 45)),
         ((408, 92, 2), (408, 2, 108)), ((340, 4), (146, 4, 98)),
         ((185, 389, 47), (185, 47, 4)), ((100, 1277), (121, 1277, 3)),
         ((64, 100, 100), (64, 100, 100)), ((100, 37, 50), (100, 50, 20)),
         ((64, 64, 64), (64, 64, 64))]


def best_of_3(call) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


device = portgemm.select_device("intel")
rng = np.random.default_rng(0)
for sa, sb in CASES:
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    c = portgemm.matmul(a, b, device=device)
    err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
    ours, numpy = [], []
    for _ in range(5):
        time.sleep(0.15)
        ours.append(best_of_3(lambda: portgemm.matmul(a, b, device=device)))
        time.sleep(0.15)
        numpy.append(best_of_3(lambda: np.matmul(a, b)))
    mine, theirs = np.median(ours), np.median(numpy)
    print(f"{str(sa):>16} @ {str(sb):>18}: {mine:8.3f} ms, numpy {theirs:7.3f} ms, "
          f"{theirs / mine * 100:6.1f}% of numpy's speed (rel err {err:.1e})", flush=True)
