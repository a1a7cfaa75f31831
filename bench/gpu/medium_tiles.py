"""Which xgemm tile for the medium class (512-2047) on the GPU (issue 11, item 5: 1000^3
and 512^3 >= 80% of cuBLAS)? auto's choice (the shipped medium entry, 32 x 64) beside a
few other tiles, each with the K split auto's model gives it, kernel time (events,
median of 20) on resident operands, cuBLAS in the same run.

    python3 bench/gpu/medium_tiles.py                  # with source .whl/setup.sh
    python bench/gpu/medium_tiles.py --device opencl:cpu:0 --sizes 100 --reps 2
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.splitk import ksplit
from portgemm.families import get_variant
from portgemm.families.xgemm import GPU_DEFAULTS, GPU_SMALL_DEFAULTS

from shapes import cublas_ms

TILES = {
    "128x64 (16x16 items, 8x4 each)": dict(GPU_DEFAULTS, NWG=64, VWN=2),
    "64x128 (16x16 items, 4x8 each)": dict(GPU_DEFAULTS, MWG=64, VWM=4),
    "64x64 (small entry)": dict(GPU_SMALL_DEFAULTS),
    "128x128 (large entry)": dict(GPU_DEFAULTS),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--sizes", default="512,768,1000,1024,1500,2047")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    xgemm = get_variant("xgemm")
    rng = np.random.default_rng(0)
    for n in map(int, args.sizes.split(",")):
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        ref = cublas_ms(a, b)
        exact = a.astype(np.float64) @ b
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        chosen = choose(device, n, n, n)
        candidates = {f"auto ({chosen.source})": chosen.params}
        for label, tile in TILES.items():
            params = xgemm.check(dict(tile, KSPLIT=1), device, 4)
            split, _ = ksplit(device, params, n, n, n, 4)
            candidates[label] = dict(params, KSPLIT=split)
        for label, params in candidates.items():
            runs = [portgemm.gemm(a_dev, b_dev, variant="xgemm", params=params)
                    for _ in range(args.reps + 3)]
            ms = statistics.median(r.kernel_ms for r in runs[3:])
            c = runs[-1].c.get()
            err = np.linalg.norm(c - exact) / np.linalg.norm(exact)
            line = (f"n={n} {label}: MWG={params['MWG']} NWG={params['NWG']} "
                    f"KSPLIT={params['KSPLIT']} {ms:.4f} ms = {2 * n ** 3 / ms / 1e9:.1f} "
                    f"TFLOPS, relerr {err:.1e}")
            if ref:
                line += f"; {ref / ms:.1%} of cuBLAS ({ref:.4f} ms)"
            print(line, flush=True)


if __name__ == "__main__":
    main()
