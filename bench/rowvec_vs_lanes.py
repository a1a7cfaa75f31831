"""tallskinny on a CPU device: rows as vectors (ROWVEC, groups of one work-item) against
the lanes' form (groups of one SIMD width, a step of K per lane), kernel time, beside
numpy's wall time (OPENBLAS_CORETYPE unset by the caller).

    python bench/rowvec_vs_lanes.py --device intel [--sizes 8x8x4194304,...] [--orders CC,CF]
"""

import argparse
import time
from math import ceil

import numpy as np

import portgemm
from portgemm.auto.tallskinny import MAX_TERMS, _row_params, row_tile
from portgemm.auto.traits import traits

SIZES = "8x8x4194304,3x3x8388608,5x5x4194304,16x16x2097152,1x1x16777216,4096x1x4096,4096x8x4096,16384x3x16384"


def median_ms(run, reps):
    times = []
    for _ in range(reps + 1):
        times.append(run())
    return float(np.median(times[1:]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--sizes", default=SIZES)
    parser.add_argument("--orders", default="CC")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    known = traits(device)
    print(f"{device.description}: simd {known.simd}, {known.compute_units} compute units")
    rng = np.random.default_rng(0)
    for size in args.sizes.split(","):
        m, n, k = map(int, size.split("x"))
        rows, _ = _row_params(known, m, n, k)
        tile = row_tile(m, n)
        simd = 1 << max(0, known.simd - 1).bit_length()
        lanes = {"GS": max(1, ceil(k / (MAX_TERMS * simd))), "BS": simd, "tile_y": tile[0],
                 "tile_x": tile[1]}
        for order in args.orders.split(","):
            a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
            b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
            a = np.asfortranarray(a) if order[0] == "F" else a
            b = np.asfortranarray(b) if order[1] == "F" else b
            cells = []
            for name, params in (("rowvec", rows), ("lanes", lanes)):
                def run():
                    return portgemm.gemm(a, b, device=device, variant="tallskinny",
                                         params=params).kernel_ms
                cells.append((name, median_ms(run, args.reps)))

            def numpy_ms():
                start = time.perf_counter()
                a @ b
                return (time.perf_counter() - start) * 1e3
            reference = median_ms(numpy_ms, args.reps)
            (_, row_ms), (_, lane_ms) = cells
            print(f"{size} {order}: rowvec {row_ms:8.2f} ms  lanes {lane_ms:8.2f} ms  "
                  f"({lane_ms / row_ms:5.2f}x)  numpy {reference:8.2f} ms  "
                  f"rowvec {(m + n) * k * 4 / row_ms / 1e6:5.1f} GB/s", flush=True)


if __name__ == "__main__":
    main()
