"""One A times a stack of B two ways, wall time of matmul (numpy in and out): B's matrices
side by side in one product (the backend's one launch declined) against one launch over
the stack (side by side never taken), in turn, median of 5 rounds of best-of-3.
    python3 bench/gpu/side_or_stack.py [--device gpu] [--shapes 37x50@100x50x20,...]"""

import argparse
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm import stacks
from portgemm.backends.opencl import OpenCLBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from stacks import SHAPES_HELP, best_of, shape_pairs  # noqa: E402  (bench/stacks.py)

SHAPES = [((128, 128), (64, 128, 128)), ((64, 64), (256, 64, 32)), ((37, 50), (100, 50, 20)),
          ((100, 100), (16, 100, 100)), ((8, 128), (512, 128, 64))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--shapes", type=shape_pairs, default=SHAPES, help=SHAPES_HELP)
    args = parser.parse_args()
    shapes = args.shapes
    shipped, launch = stacks.SIDE_BY_SIDE_VALUES, OpenCLBackend.run_stack
    rng = np.random.default_rng(0)
    for a_shape, b_shape in shapes:
        a = rng.standard_normal(a_shape).astype(args.dtype)
        b = rng.standard_normal(b_shape).astype(args.dtype)
        times = {"side by side": [], "one launch": []}
        for _ in range(5):
            for mode in times:
                side = mode == "side by side"
                stacks.SIDE_BY_SIDE_VALUES = shipped if side else 0
                OpenCLBackend.run_stack = (lambda *a, **k: None) if side else launch
                portgemm.matmul(a, b, device=args.device)
                times[mode].append(best_of(lambda: portgemm.matmul(a, b, device=args.device)))
        stacks.SIDE_BY_SIDE_VALUES, OpenCLBackend.run_stack = shipped, launch
        side, one = (float(np.median(times[mode])) for mode in times)
        print(f"{str(a_shape):>12} @ {str(b_shape):>16}: side by side {side:8.3f} ms, "
              f"one launch {one:8.3f} ms, side / one {side / one:5.2f}")


if __name__ == "__main__":
    main()
