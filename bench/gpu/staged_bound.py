"""matmul's wall time with numpy in and out under three ways to move the operands, in
turn: everything staged through pinned buffers (the bound at 0), staged from
transfers.STAGED_FROM_BYTES (as shipped), plain copies; torch beside them. Each side the
best of 5 calls a round, median of 7 rounds.
    python3 bench/gpu/staged_bound.py [--shapes 1024x1024x1024,...]"""

import argparse
import os
import statistics
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.backends import transfers
from portgemm.bench.references import cuda_torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from stacks import best_of  # noqa: E402  (bench/stacks.py)


def best_ms(call):
    return best_of(call, count=5, pause=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="512x512x512,1024x1024x1024,1448x1448x1448,"
                        "2048x512x2048,2048x2048x2048,2896x2896x2896")
    args = parser.parse_args()
    torch = cuda_torch()
    device = portgemm.select_device("gpu")
    shipped = transfers.STAGED_FROM_BYTES
    sides = {"all staged": ("staged", 0), "shipped": ("staged", shipped),
             "copy": ("copy", shipped)}
    for text in args.shapes.split(","):
        m, n, k = (int(v) for v in text.split("x"))
        rng = np.random.default_rng(0)
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        times = {side: [] for side in (*sides, "torch")}
        for _ in range(7):
            for side, (policy, bound) in sides.items():
                os.environ[transfers.TRANSFER_ENV_VAR] = policy
                transfers.STAGED_FROM_BYTES = bound
                portgemm.matmul(a, b, device=device)
                times[side].append(best_ms(lambda: portgemm.matmul(a, b, device=device)))
            times["torch"].append(best_ms(
                lambda: (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu()))
        transfers.STAGED_FROM_BYTES = shipped
        os.environ.pop(transfers.TRANSFER_ENV_VAR)
        ms = {side: statistics.median(values) for side, values in times.items()}
        print(f"{text:>16} ({m * k * 4 / 2**20:5.1f} / {k * n * 4 / 2**20:5.1f} / "
              f"{m * n * 4 / 2**20:5.1f} MiB): " + ", ".join(
                  f"{side} {value:.3f}" for side, value in ms.items()) + " ms", flush=True)


if __name__ == "__main__":
    main()
