"""Where a call's kernel time goes: each launch of the plan (packing, the product, the
sum of split slices) on its own OpenCL event, median over runs, beside numpy timed turn
about with them as the bench does (portgemm.bench.runner.turn_about).

    python bench/step_times.py --device opencl:cpu:1 --sizes 64x4096x4096,2048
    python bench/step_times.py --device pocl --variant vec --params '{"PACKED": 0}'
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

import numpy as np

import portgemm
from portgemm.bench.references import numpy_call_ms
from portgemm.bench.runner import parse_sizes, turn_about


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--variant", default="auto")
    parser.add_argument("--params", default=None, help="JSON, with a named variant")
    parser.add_argument("--sizes", default="64x4096x4096")
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    if "OPENBLAS_CORETYPE" in os.environ:
        print("note: OPENBLAS_CORETYPE is set; numpy runs slower than it can")
    device = portgemm.select_device(args.device)
    params = json.loads(args.params) if args.params else None
    print(device.description)
    rng = np.random.default_rng(0)
    for m, n, k in parse_sizes(args.sizes):
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        def call():
            return portgemm.gemm(a, b, device=device, variant=args.variant, params=params)

        call()  # builds the kernels
        runs, numpy_ms = turn_about(call, numpy_call_ms(a, b), args.reps)
        steps = [statistics.median(times) for times in zip(*(r.step_ms for r in runs))]
        print(f"{m}x{n}x{k} {runs[0].variant} {runs[0].params}")
        print(f"  steps (ms): {', '.join(f'{ms:.3f}' for ms in steps)}; sum {sum(steps):.3f}; "
              f"numpy {statistics.median(numpy_ms):.3f}")


if __name__ == "__main__":
    main()
