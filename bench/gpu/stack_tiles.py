"""Which tile a stack in one launch should take: auto's for one product (as shipped)
against auto's for the stack's rows one after another (S*M x N x K: as many tiles as
the launch covers). Wall time of matmul, numpy in and out, in turn, median of 5 rounds
of best-of-3; the tiles each chose.
    python3 bench/gpu/stack_tiles.py [--device gpu] [--dtype float32]"""

import argparse
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.backends import opencl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from stacks import best_of  # noqa: E402  (bench/stacks.py)

CASES = [((128, 128), (64, 128, 128)), ((64, 64), (256, 64, 32)),
         ((64, 128, 128), (64, 128, 128)), ((256, 32, 64), (256, 64, 32)),
         ((8, 512, 512), (8, 512, 512)), ((37, 50), (100, 50, 20)),
         ((100, 100), (16, 100, 100)), ((512, 512), (16, 512, 512)),
         ((32, 256, 256), (32, 256, 256))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    shipped_resolve, shipped_run = opencl.OpenCLBackend.resolve, opencl.OpenCLBackend.run_stack
    chosen = {}

    def run_recording(self, resolved, a, b, **kwargs):
        result = shipped_run(self, resolved, a, b, **kwargs)
        chosen[mode] = (resolved.variant, None if result is None else result.params)
        return result

    def stack_resolve(self, device, variant, params, shape, dtype, layout="CC"):
        return shipped_resolve(self, device, variant, params,
                               (shape[0] * stack_resolve.count, *shape[1:]), dtype, layout)

    opencl.OpenCLBackend.run_stack = run_recording
    rng = np.random.default_rng(0)
    for a_shape, b_shape in CASES:
        a = rng.standard_normal(a_shape).astype(args.dtype)
        b = rng.standard_normal(b_shape).astype(args.dtype)
        stack_resolve.count = max(a.shape[0] if a.ndim == 3 else 1, b.shape[0])
        times = {"one product": [], "stack's rows": []}
        for _ in range(5):
            for mode in times:
                opencl.OpenCLBackend.resolve = (shipped_resolve if mode == "one product"
                                                else stack_resolve)
                portgemm.matmul(a, b, device=args.device)
                times[mode].append(best_of(lambda: portgemm.matmul(a, b, device=args.device)))
        opencl.OpenCLBackend.resolve = shipped_resolve
        one, rows = (float(np.median(times[mode])) for mode in times)
        print(f"{str(a_shape):>14} @ {str(b_shape):>16}: one product's tile {one:7.3f} ms, "
              f"the stack's rows' {rows:7.3f} ms, one / rows {one / rows:5.2f}")
        for mode, (variant, params) in chosen.items():
            print(f"    {mode}: {variant} {params}")


if __name__ == "__main__":
    main()
