"""Where a warm matmul of device arrays spends the host's time, layer by layer: the
whole call, then each layer below it called alone (api._gemm, the backend's run,
run_gemm), per call in microseconds (best of 5 runs of REPS), then a cProfile of
the whole call sorted by own time.

    python3 bench/gpu/call_layers.py [--device gpu] [--size 64] [--reps 2000]
"""

from __future__ import annotations

import cProfile
import pstats
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.api import _gemm
from portgemm.backends.opencl import BACKEND, queue_for, run_gemm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from device_call_pieces import call_arguments, per_call_us  # noqa: E402 (bench/, beside this folder)


def main() -> None:
    args, device = call_arguments(__doc__)
    n = args.size
    a = b = portgemm.to_device(np.ones((n, n), np.float32), device)
    resolved = BACKEND.resolve(device, "auto", None, (n, n, n), np.dtype(np.float32))
    queue = queue_for(device, a, b)
    layers = {
        "matmul": lambda: portgemm.matmul(a, b),
        "api._gemm (wait=False)": lambda: _gemm(a, b, device=None, variant="auto",
                                                params=None, backend="opencl", out=None,
                                                wait=False),
        "BACKEND.run (wait=False)": lambda: BACKEND.run(resolved, a, b, wait=False),
        "run_gemm (wait=False)": lambda: run_gemm(queue, resolved.impl, resolved.params,
                                                  a, b, wait=False),
        "BACKEND.resolve": lambda: BACKEND.resolve(device, "auto", None, (n, n, n),
                                                   np.dtype(np.float32)),
    }
    print(f"{device.description}; {n}^3 float32, {resolved.variant}")
    for name, call in layers.items():
        print(f"{name:28s} {per_call_us(call, args.reps, queue.finish):8.1f} us",
              flush=True)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.reps):
        portgemm.matmul(a, b)
    profile.disable()
    queue.cl_queue.finish()
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
