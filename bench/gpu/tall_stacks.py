"""Stacks whose products auto gives tallskinny: one launch over the stack (one group
along K a product) against the way before (tallskinny took no stack: a call a pair, or
one A times B side by side), beside the vendor (torch on CUDA from numpy and back on a
GPU, TF32 off; numpy on a CPU). Whole matmul calls, numpy in and out; rounds in turn,
median of each side's best-of-3.
    python3 bench/gpu/tall_stacks.py [--device gpu] [--rounds 5] [--shapes 8x4096@64x4096x8,...]"""

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.backends.opencl import OpenCLBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from stacks import SHAPES_HELP, best_of, shape_pairs, torch_matmul  # noqa: E402

SHAPES = [((64, 8, 4096), (64, 4096, 8)), ((256, 4, 8192), (256, 8192, 4)),
          ((16, 16, 16384), (16, 16384, 16)), ((8, 4096), (128, 4096, 8)),
          ((1000, 3, 2048), (1000, 2048, 3)), ((32, 8, 65536), (32, 65536, 8)),
          ((512, 1, 128), (512, 128, 64)), ((64, 2, 1000), (64, 1000, 50)),
          ((4, 8, 1 << 20), (4, 1 << 20, 8)), ((8, 16, 1 << 18), (8, 1 << 18, 16))]


def launches(a, b, device) -> str:
    """The variant and GS of the stack's launch, or 'none' where it ran otherwise."""
    seen = []

    def spy(self, *args, **kwargs):
        result = RUN_STACK(self, *args, **kwargs)
        seen.append("none" if result is None else f"{result.variant} {result.params}")
        return result
    OpenCLBackend.run_stack = spy
    try:
        portgemm.matmul(a, b, device=device)
    finally:
        OpenCLBackend.run_stack = RUN_STACK
    return seen[-1] if seen else "no launch tried"


RUN_STACK = OpenCLBackend.run_stack


def declining(self, resolved, *args, **kwargs):
    """run_stack as before tallskinny took a stack (launch plans are memoized, so the
    family's ``stacks`` cannot be switched back)."""
    if resolved.impl.name == "tallskinny":
        return None
    return RUN_STACK(self, resolved, *args, **kwargs)


def use(mode: str) -> None:
    OpenCLBackend.run_stack = declining if mode == "before" else RUN_STACK


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shapes", type=shape_pairs, default=SHAPES, help=SHAPES_HELP)
    args = parser.parse_args()
    shapes = args.shapes
    device = portgemm.select_device(args.device)
    vendor = torch_matmul(device) or np.matmul
    name = "torch" if vendor is not np.matmul else "numpy"
    print(f"device: {device.description}; vendor: {name}")
    rng = np.random.default_rng(0)
    for a_shape, b_shape in shapes:
        a = rng.standard_normal(a_shape).astype(np.float32)
        b = rng.standard_normal(b_shape).astype(np.float32)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        times = {"launch": [], "before": [], name: []}
        errors = {}
        for mode in ("launch", "before"):
            use(mode)
            c = portgemm.matmul(a, b, device=device)
            errors[mode] = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        use("launch")
        how = launches(a, b, device)
        vendor(a, b)
        for _ in range(args.rounds):
            for mode in times:
                use(mode)
                call = (lambda: vendor(a, b)) if mode == name else (
                    lambda: portgemm.matmul(a, b, device=device))
                times[mode].append(best_of(call))
        use("launch")
        ms = {mode: statistics.median(values) for mode, values in times.items()}
        print(f"{str(a_shape):>16} @ {str(b_shape):>18}: launch {ms['launch']:8.3f} ms, "
              f"before {ms['before']:8.3f}, {name} {ms[name]:8.3f}; before/launch "
              f"{ms['before'] / ms['launch']:6.2f}, {name}/launch {ms[name] / ms['launch']:5.2f}"
              f"; rel err {errors['launch']:.1e} ({errors['before']:.1e} before); {how}",
              flush=True)


if __name__ == "__main__":
    main()
