"""xgemm (or --variant) knobs around the GPU preset on the GPU of the device tool (by default SWIZZLE,
KUNROLL, PAD and the slab depth at 4096 and 8192, float32), each candidate verified and
timed on device-resident operands, beside cuBLAS in the same run.

    python3 bench/gpu/knobs.py --json knobs.json
    python3 bench/gpu/knobs.py --sizes 4096 --space '{"MDIMC": [8, 16], "NDIMC": [8, 16]}'

--space replaces the default one: each parameter it names takes its values, the others
keep the preset's (--dtype float64 starts from the shipped float64 entry instead; another
--variant from its own defaults).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import portgemm
from portgemm.families import get_variant
from portgemm.families.xgemm import GPU_DEFAULTS
from portgemm.tune import tune

from register_cap import F64_ENTRY
from shapes import cublas_ms


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="knobs.json")
    p.add_argument("--budget", type=float, default=150)
    p.add_argument("--sizes", default="4096,8192")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--variant", default="xgemm")
    p.add_argument("--restrict", action="append", default=[],
                   help="an expression over the parameters, e.g. 'MDIMC * NDIMC == 256'")
    p.add_argument("--space", type=json.loads,
                   default={"SWIZZLE": [1, 2, 4, 8, 16], "KUNROLL": [8, 16], "PAD": [0, 1],
                            "KWG": [16, 32]})
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    dtype = np.dtype(args.dtype)
    start = (get_variant(args.variant).defaults if args.variant != "xgemm" else
             GPU_DEFAULTS if dtype == np.float32 else F64_ENTRY)
    space = {key: [value] for key, value in start.items()}
    space.update(args.space)
    sizes = [int(n) for n in args.sizes.split(",")]
    result = tune(args.variant, device, sizes, space=space, strategy="exhaustive", dtype=dtype,
                  restrictions=args.restrict,
                  budget_s=args.budget, reps=5, warmup=2, progress=False, cache_file=None)
    print(result.summary())
    print(result.table(12))
    rng = np.random.default_rng(0)
    refs = {}
    for n in sizes:
        a = rng.uniform(-1, 1, (n, n)).astype(dtype)
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
            line = (f"best at {n}: {record.kernel_ms:.3f} ms = "
                    f"{2 * n ** 3 / (record.kernel_ms * 1e9):.1f} TFLOPS")
            if refs[n]:
                line += f", {refs[n] / record.kernel_ms:.1%} of cuBLAS ({refs[n]:.3f} ms)"
            print(line)


if __name__ == "__main__":
    main()
