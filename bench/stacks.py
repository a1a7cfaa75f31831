"""Stacks of matrices through portgemm.matmul: the one product or launch it runs, against
a product per matrix, numpy.matmul and, on a GPU with torch, torch.matmul on CUDA (TF32
off, from numpy and back, as portgemm's call goes). Wall time of the whole call, numpy in
and out; rounds in turn, median of each side's best-of-3.

    python bench/stacks.py [--device intel] [--rounds 5] [--json out.json]
        [--shapes 64x2x1000@64x1000x50,...]     # A@B, each side's axes joined by x
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import portgemm
from portgemm.bench.references import cuda_torch

# (a's shape, b's shape): a stack of A times one B, one A times a stack of B, two stacks
CASES = [((64, 128, 128), (128, 128)), ((128, 128), (64, 128, 128)),
         ((256, 32, 64), (64, 64)), ((64, 64), (256, 64, 32)),
         ((16, 512, 512), (512, 512)), ((512, 512), (16, 512, 512)),
         ((64, 128, 128), (64, 128, 128)), ((256, 32, 64), (256, 64, 32)),
         ((8, 512, 512), (8, 512, 512))]


SHAPES_HELP = "A@B pairs, each side's axes joined by x, pairs by commas"


def shape_pairs(text: str) -> list:
    """``--shapes``' (a's shape, b's shape) pairs: "64x2x1000@64x1000x50,8x64@9x64x5"."""
    return [tuple(tuple(int(v) for v in side.split("x")) for side in pair.split("@"))
            for pair in text.split(",")]


def torch_matmul(device):
    """numpy -> CUDA -> torch.matmul -> numpy, or None without torch's CUDA or a GPU."""
    torch = cuda_torch() if device is not None and "gpu" in device.filter_string else None
    if torch is None:
        return None

    def call(a, b):
        c = torch.matmul(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu()
        return c.numpy()
    return call


def best_of(call, count=3, pause=0.15) -> float:
    time.sleep(pause)  # the other side's threads (OpenBLAS's, the runtime's) stop spinning
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return min(times)


def one_product_each(a, b, device):
    """What a call would cost with a product per matrix: portgemm.gemm per pair."""
    stack = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_all = np.broadcast_to(a, stack + a.shape[-2:])
    b_all = np.broadcast_to(b, stack + b.shape[-2:])
    c = np.empty(stack + (a.shape[-2], b.shape[-1]), a.dtype)
    for index in np.ndindex(*stack):
        portgemm.gemm(a_all[index], b_all[index], device=device, out=c[index])
    return c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--json", default=None)
    parser.add_argument("--shapes", type=shape_pairs, default=CASES, help=SHAPES_HELP)
    args = parser.parse_args()
    cases = args.shapes
    device = portgemm.select_device(args.device) if args.device else None
    vendor = torch_matmul(device or portgemm.select_device(None))
    rng = np.random.default_rng(0)
    rows = []
    print(f"device: {(device or portgemm.select_device(None)).description}")
    print(f"{'a':>16} {'b':>16} {'matmul ms':>10} {'per pair':>10} {'numpy':>10} "
          f"{'torch':>8} {'pairs/matmul':>12} {'numpy/matmul':>12} {'torch/matmul':>12}")
    for a_shape, b_shape in cases:
        a = rng.standard_normal(a_shape).astype(args.dtype)
        b = rng.standard_normal(b_shape).astype(args.dtype)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        c = portgemm.matmul(a, b, device=device)
        error = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        one_product_each(a, b, device)  # warm-up: builds and choices
        sides = {"matmul": [], "pairs": [], "numpy": []}
        if vendor is not None:
            vendor(a, b)
            sides["torch"] = []
        for _ in range(args.rounds):
            sides["matmul"].append(best_of(lambda: portgemm.matmul(a, b, device=device)))
            sides["pairs"].append(best_of(lambda: one_product_each(a, b, device)))
            sides["numpy"].append(best_of(lambda: np.matmul(a, b)))
            if vendor is not None:
                sides["torch"].append(best_of(lambda: vendor(a, b)))
        ms = {side: statistics.median(times) for side, times in sides.items()}
        rows.append({"a": a_shape, "b": b_shape, "dtype": args.dtype, "rel_err": error,
                     **{f"{side}_ms": value for side, value in ms.items()},
                     "rounds": sides})
        torch_ms = ms.get("torch", float("nan"))
        print(f"{str(a_shape):>16} {str(b_shape):>16} {ms['matmul']:10.3f} "
              f"{ms['pairs']:10.3f} {ms['numpy']:10.3f} {torch_ms:8.3f} "
              f"{ms['pairs'] / ms['matmul']:12.2f} {ms['numpy'] / ms['matmul']:12.2f} "
              f"{torch_ms / ms['matmul']:12.2f}   err {error:.1e}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"device": (device or portgemm.select_device(None)).description,
                       "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
