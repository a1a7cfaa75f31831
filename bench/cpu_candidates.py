"""Candidates on one shape on a CPU device beside numpy, in rounds: each round times auto
and every candidate (the best of 3 calls after one warm-up, wall time of the whole
call, numpy in and out) and then numpy, so that the machine's drift falls on all of
them within a round. Each one starts after a pause (the bench's SETTLE_S), so that
OpenBLAS's threads, which spin for about 0.1 s after a call, have stopped.

    python bench/cpu_candidates.py 16x4096x4096 panel \
        'panel={"tile_y": 8, "tile_x": 3, "wg_x": 16, "KC": 128, "MB": 256, "PACKED": 0, "PACK_A": 0}'

A candidate is VARIANT (its own parameters: the model's) or VARIANT=JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import portgemm
from portgemm.bench.runner import SETTLE_S


def best_ms(call, runs=3):
    time.sleep(SETTLE_S)
    call()  # warm-up: builds, pools
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", help="MxNxK")
    parser.add_argument("candidates", nargs="*", help="VARIANT or VARIANT=JSON")
    parser.add_argument("--device", default="intel")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    m, n, k = map(int, args.size.split("x"))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(args.dtype)
    b = rng.standard_normal((k, n)).astype(args.dtype)
    candidates = [("auto", None)] + [
        (item.split("=", 1)[0], json.loads(item.split("=", 1)[1]) if "=" in item else None)
        for item in args.candidates]
    times = {index: [] for index in range(len(candidates))}
    numpy_times = []
    for round_ in range(args.rounds):
        for index, (variant, params) in enumerate(candidates):
            ms, result = best_ms(lambda: portgemm.gemm(a, b, device=device, variant=variant,
                                                       params=params))
            times[index].append(ms)
            if round_ == 0:
                print(f"{index}: {result.variant} {result.params}")
        numpy_times.append(best_ms(lambda: a @ b)[0])
    print(f"{args.size} numpy ms: {[round(t, 2) for t in numpy_times]}")
    for index, (variant, _) in enumerate(candidates):
        print(f"{index} {variant} ms: {[round(t, 2) for t in times[index]]}")


if __name__ == "__main__":
    main()
