"""A tall C (a matrix times a few columns) on a CPU device: what auto takes against
tallskinny's rows as vectors (ROWVEC), kernel time, beside numpy's wall time. Decides
where the skinny class ends for a kind of compiler (portgemm/auto/shapes.py).

    python bench/tall_c.py --device pocl [--sizes 4096x8x4096,...]
"""

import argparse
import time

import numpy as np

import portgemm
from portgemm.auto.tallskinny import _row_params
from portgemm.auto.traits import traits

SIZES = ("4096x1x4096,4096x2x4096,4096x4x4096,4096x8x4096,4096x12x4096,4096x16x4096,"
         "4096x24x4096,16384x8x2048,50000x8x1024")


def median_ms(run, reps):
    return float(np.median([run() for _ in range(reps + 1)][1:]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--sizes", default=SIZES)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description)
    rng = np.random.default_rng(0)
    for size in args.sizes.split(","):
        m, n, k = map(int, size.split("x"))
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        rows, _ = _row_params(traits(device), m, n, k)
        chosen = portgemm.gemm(a, b, device=device)
        auto_ms = median_ms(lambda: portgemm.gemm(a, b, device=device).kernel_ms, args.reps)
        row_ms = median_ms(lambda: portgemm.gemm(a, b, device=device, variant="tallskinny",
                                                 params=rows).kernel_ms, args.reps)

        def numpy_ms():
            start = time.perf_counter()
            a @ b
            return (time.perf_counter() - start) * 1e3
        reference = median_ms(numpy_ms, args.reps)
        print(f"{size}: auto {chosen.variant} {auto_ms:8.2f} ms | tallskinny ROWVEC "
              f"{row_ms:8.2f} ms ({auto_ms / row_ms:5.2f}x auto) | numpy {reference:8.2f} ms",
              flush=True)


if __name__ == "__main__":
    main()
