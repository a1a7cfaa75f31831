"""float64 xgemm tiles on the GPU (issue 11: >= 25 TFLOPS at 4096 on the H200; the shipped
entry, 128 x 128 tiles of 8 x 8 doubles a work-item, ran 21.5-21.6): a model-ranked search
over tile shapes that hold fewer doubles a work-item (more groups an SM) and the 96- and
192-wide tiles xgemm's space gained, every candidate verified, the best beside cuBLAS.

    python3 bench/gpu/f64_tiles.py --budget 200      # with source .whl/setup.sh
"""

from __future__ import annotations

import argparse

import numpy as np

import portgemm
from portgemm.tune import tune

from async_copies import F64_ENTRY, time_at
from shapes import cublas_ms


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--budget", type=float, default=200)
    p.add_argument("--size", type=int, default=4096)
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    space = {key: [value] for key, value in F64_ENTRY.items()}
    space.update(MWG=[64, 96, 128, 192], NWG=[64, 96, 128], MDIMC=[8, 16], NDIMC=[8, 16, 32],
                 KWG=[8, 16], VWM=[1, 2], VWN=[1, 2], DOUBLE_BUFFER=[0, 1],
                 WARPN=[8, 16, 32], KUNROLL=[8])
    result = tune("xgemm", device, [args.size], space=space, strategy="model", fraction=1.0,
                  budget_s=args.budget, reps=5, warmup=2, progress=False, cache_file=None,
                  dtype=np.float64, first=[F64_ENTRY])
    print(result.summary())
    print(result.table(20))
    n = args.size
    a = np.random.default_rng(0).uniform(-1, 1, (n, n))
    ref = cublas_ms(a, a)
    for label, params in (("shipped entry", F64_ENTRY), ("best of the search", result.best.params)):
        ms = time_at(device, params, n, np.float64)
        print(f"{label}: {ms:.3f} ms = {2 * n ** 3 / ms / 1e9:.1f} TFLOPS"
              + (f", {ref / ms:.1%} of cuBLAS ({ref:.3f} ms)" if ref else "") + f"; {params}")


if __name__ == "__main__":
    main()
