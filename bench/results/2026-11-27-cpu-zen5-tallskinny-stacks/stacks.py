"""Whole matmul calls on stacks whose products auto gives tallskinny, beside numpy in
turns: median of 5 rounds of best-of-3 each, after a 0.15 s pause a side.
    python stacks.py [--device intel]          # PYTHONPATH picks the checkout"""
import argparse
import time

import numpy as np

import portgemm

CASES = [((8, 128), (512, 128, 64)), ((1, 128), (512, 128, 64)), ((4, 256), (256, 256, 32)),
         ((512, 8, 128), (512, 128, 64)), ((512, 1, 128), (512, 128, 64)),
         ((256, 4, 64), (256, 64, 64)), ((64, 2, 1000), (64, 1000, 50)),
         ((1000, 3, 16), (1000, 16, 3)), ((64, 8, 4096), (64, 4096, 8)),
         ((16, 4, 100000), (16, 100000, 4)), ((2, 8, 2**20), (2, 2**20, 8))]


def best_of_3(call) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


parser = argparse.ArgumentParser()
parser.add_argument("--device", default="intel")
device = portgemm.select_device(parser.parse_args().device)
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
