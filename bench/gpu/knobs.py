"""xgemm knobs around the GPU preset on the GPU of the device tool: SWIZZLE, KUNROLL,
PAD and the slab depth at 4096 and 8192 (float32), each candidate verified and timed on
device-resident operands, beside cuBLAS in the same run.

    python3 bench/gpu/knobs.py --json knobs.json
"""

from __future__ import annotations

import argparse
import json

import portgemm
from portgemm.families.xgemm import GPU_DEFAULTS
from portgemm.tune import tune

from shapes import cublas_ms


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="knobs.json")
    p.add_argument("--budget", type=float, default=150)
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    space = {key: [value] for key, value in GPU_DEFAULTS.items()}
    space.update(SWIZZLE=[1, 2, 4, 8, 16], KUNROLL=[8, 16], PAD=[0, 1], KWG=[16, 32])
    result = tune("xgemm", device, [4096, 8192], space=space, strategy="exhaustive",
                  budget_s=args.budget, reps=5, warmup=2, progress=False, cache_file=None)
    print(result.summary())
    print(result.table(12))
    import numpy as np

    rng = np.random.default_rng(0)
    refs = {}
    for n in (4096, 8192):
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        refs[n] = cublas_ms(a, a)
    rows = [{"params": c.params, "ms": {f"{r.size[0]}": r.kernel_ms for r in c.records}}
            for c in result.ok]
    with open(args.json, "w") as f:
        json.dump({"cublas_ms": refs, "candidates": rows, "summary": result.summary()}, f,
                  indent=1)
    best = result.best
    if best is not None:
        for record in best.records:
            n = record.size[0]
            print(f"best at {n}: {record.kernel_ms:.3f} ms = "
                  f"{2 * n ** 3 / (record.kernel_ms * 1e9):.1f} TFLOPS, "
                  f"{refs[n] / record.kernel_ms:.1%} of cuBLAS ({refs[n]:.3f} ms)")


if __name__ == "__main__":
    main()
