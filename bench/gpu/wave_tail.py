"""The last wave's tail (issue 11, item 5: 4097^3 >= 85% of cuBLAS): a C of 33 x 33
tiles of 128 x 128 runs 9 rounds of one group per SM on 132 SMs where 4096's 32 x 32
needs 8, the last round a quarter full. Splitting K in S layers makes S times as many
shorter groups, so the last round is a smaller share of the time, at the price of the
partial products and their sum. This times the large preset with KSPLIT = 1-4 on square
shapes (kernel time: the GEMM and the sum, events), beside cuBLAS.

    python3 bench/gpu/wave_tail.py [--sizes 4096,4097,...]   # with source .whl/setup.sh
    python bench/gpu/wave_tail.py --device opencl:cpu:0 --sizes 129 --splits 1,3
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import portgemm
from portgemm.families.xgemm import GPU_DEFAULTS

from shapes import cublas_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--sizes", default="4096,4097,4099,4160,5000,3000,8193")
    parser.add_argument("--splits", default="1,2,3,4")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    print(portgemm.select_device(args.device).description, flush=True)
    rng = np.random.default_rng(0)
    for n in map(int, args.sizes.split(",")):
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        ref = cublas_ms(a, b)
        a_dev = portgemm.to_device(a, args.device)
        b_dev = portgemm.to_device(b, args.device)
        first = None
        for split in map(int, args.splits.split(",")):
            params = dict(GPU_DEFAULTS, KSPLIT=split)
            runs = [portgemm.gemm(a_dev, b_dev, variant="xgemm", params=params)
                    for _ in range(args.reps + 2)]
            ms = statistics.median(r.kernel_ms for r in runs[2:])
            c = runs[-1].c.get()
            if first is None:
                first = c
                exact = a[:256].astype(np.float64) @ b
                err = np.linalg.norm(c[:256] - exact) / np.linalg.norm(exact)
                check = f"relerr (first 256 rows) {err:.1e}"
            else:
                diff = np.abs(c - first).max() / np.abs(first).max()
                check = f"max diff to KSPLIT=1 {diff:.1e}"
            line = (f"n={n} KSPLIT={split}: {ms:.3f} ms = {2 * n ** 3 / ms / 1e9:.1f} TFLOPS;"
                    f" {check}")
            if ref:
                line += f"; {ref / ms:.1%} of cuBLAS ({ref:.3f} ms)"
            print(line, flush=True)
        del a_dev, b_dev


if __name__ == "__main__":
    main()
