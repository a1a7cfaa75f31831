"""Diagnosis: tallskinny's REDUCE=1 (the butterfly through local memory) on a CPU device
such as the GPU machine's PoCL 5.0, where it gave wrong sums. Runs the failing cases with
the refusal lifted and prints the relative error of each; run it under different
POCL_WORK_GROUP_METHOD values or kernel edits to see which part the compiler gets wrong.

    python3 bench/gpu/pocl5_butterfly.py [DEVICE]
"""

from __future__ import annotations

import sys

import numpy as np

import portgemm
import portgemm.families.tallskinny as family

family.butterfly_miscompiled = lambda device: False  # lifted: this script tests it

CASES = [({"GS": 3, "BS": 32, "tile_y": 8, "tile_x": 8, "REDUCE": 1}, (7, 1, 999)),
         ({"GS": 3, "BS": 32, "tile_y": 8, "tile_x": 8, "REDUCE": 1}, (13, 11, 3001)),
         ({"GS": 6, "BS": 64, "tile_y": 3, "tile_x": 5, "REDUCE": 1, "FUSE": 1}, (4, 4, 777)),
         ({"GS": 1, "BS": 32, "tile_y": 2, "tile_x": 1, "REDUCE": 1}, (2, 1, 64)),
         ({"GS": 1, "BS": 32, "tile_y": 1, "tile_x": 1, "REDUCE": 1}, (1, 1, 64))]


def main():
    device = portgemm.select_device(sys.argv[1] if len(sys.argv) > 1 else "cpu")
    rng = np.random.default_rng(0)
    for params, (m, n, k) in CASES:
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        ref = a.astype(np.float64) @ b
        c = portgemm.gemm(a, b, device=device, variant="tallskinny", params=params).c
        err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
        print(f"{device.filter_string} {m}x{n}x{k} {params}: relerr {err:.1e}"
              f" {'ok' if err < 1e-5 else 'WRONG'}")


if __name__ == "__main__":
    main()
