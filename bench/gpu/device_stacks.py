"""Stacks that live on the GPU: portgemm.matmul on device arrays (one launch, C on the
device) against torch.matmul on CUDA tensors (TF32 off), the same values; each call
finished before the clock stops (queue.finish, torch.cuda.synchronize); rounds in turn,
median of each side's best-of-5.
    python3 bench/gpu/device_stacks.py [--device gpu] [--rounds 5] [--shapes A@B,...]"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import portgemm
from portgemm.bench.references import cuda_torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from stacks import SHAPES_HELP, shape_pairs  # noqa: E402  (bench/stacks.py)

SHAPES = [((256, 32, 64), (256, 64, 32)), ((64, 128, 128), (64, 128, 128)),
          ((64, 2, 1000), (64, 1000, 50)), ((100, 37, 50), (100, 50, 20)),
          ((16, 512, 512), (16, 512, 512)), ((64, 8, 4096), (64, 4096, 8)),
          ((128, 128), (64, 128, 128))]


def best_of_5(call) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shapes", type=shape_pairs, default=SHAPES, help=SHAPES_HELP)
    args = parser.parse_args()
    shapes = args.shapes
    device = portgemm.select_device(args.device)
    torch = cuda_torch()
    print(f"device: {device.description}; torch: {'yes' if torch else 'no'}")
    rng = np.random.default_rng(0)
    for a_shape, b_shape in shapes:
        a = rng.standard_normal(a_shape).astype(np.float32)
        b = rng.standard_normal(b_shape).astype(np.float32)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        c = portgemm.matmul(a_dev, b_dev).get()
        error = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))

        def ours():
            portgemm.matmul(a_dev, b_dev).queue.finish()
        sides = {"portgemm": ours}
        if torch is not None:
            a_t, b_t = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()

            def theirs():
                torch.matmul(a_t, b_t)
                torch.cuda.synchronize()
            sides["torch"] = theirs
        for call in sides.values():
            call()
        times = {side: [] for side in sides}
        for _ in range(args.rounds):
            for side, call in sides.items():
                times[side].append(best_of_5(call))
        ms = {side: statistics.median(values) for side, values in times.items()}
        ratio = f", torch / portgemm {ms['torch'] / ms['portgemm']:.2f}" if "torch" in ms else ""
        print(f"{str(a_shape):>16} @ {str(b_shape):>16}: "
              + ", ".join(f"{side} {value:.3f} ms" for side, value in ms.items())
              + f"{ratio}; rel err {error:.1e}", flush=True)


if __name__ == "__main__":
    main()
