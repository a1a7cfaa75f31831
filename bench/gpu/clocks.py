"""SM clock and power while a GEMM runs back to back: portgemm's `auto` (OpenCL, operands
resident) against cuBLAS (torch, TF32 off), float32 and float64 at 4096³ (issue 11, item 4).

Both reach a steady state after a second or so; `nvidia-smi` samples the SM clock, the
power and the throttle reasons every 50 ms meanwhile. If one of the two ran at a lower
clock (power-limited), its share of the FMA peak would be lower for that reason alone.

    python3 bench/gpu/clocks.py [--seconds 4]      # with source .whl/setup.sh
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

import numpy as np

import portgemm

FIELDS = "clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"


def sampled(run_once, seconds: float) -> tuple[int, list[list[str]]]:
    """Calls run_once() until `seconds` have passed, sampling nvidia-smi meanwhile; the
    number of calls and the samples of the second half (the steady state)."""
    smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv,noheader",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        run_once()
        calls += 1
    smi.terminate()
    rows = [[f.strip() for f in line.split(",")] for line in smi.stdout.read().splitlines()]
    return calls, rows[len(rows) // 2:]


def summary(label: str, calls: int, seconds: float, flop: float, rows) -> str:
    clocks = [float(r[0].split()[0]) for r in rows if r[0].split()[0].replace(".", "").isdigit()]
    power = [float(r[1].split()[0]) for r in rows if r[1].split()[0].replace(".", "").isdigit()]
    reasons = sorted({r[3] for r in rows if len(r) > 3})
    return (f"{label}: {calls} calls in {seconds:.1f} s = {calls * flop / seconds / 1e12:.1f} "
            f"TFLOPS; SM clock median {statistics.median(clocks):.0f} MHz "
            f"(min {min(clocks):.0f}), power median {statistics.median(power):.0f} W, "
            f"throttle reasons {reasons}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--seconds", type=float, default=4.0)
    args = p.parse_args()
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    n = args.n
    flop = 2.0 * n ** 3
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        a = rng.uniform(-1, 1, (n, n)).astype(dtype)
        b = rng.uniform(-1, 1, (n, n)).astype(dtype)
        a_dev, b_dev = portgemm.to_device(a, args.device), portgemm.to_device(b, args.device)
        out = portgemm.matmul(a_dev, b_dev)
        queue = out.queue

        def ours():
            portgemm.matmul(a_dev, b_dev, out=out)
            queue.finish()

        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()

        def cublas():
            ta @ tb
            torch.cuda.synchronize()

        for label, run in (("portgemm auto", ours), ("cuBLAS", cublas)):
            run()
            time.sleep(2)  # cool down a little between the two
            start = time.perf_counter()
            calls, rows = sampled(run, args.seconds)
            seconds = time.perf_counter() - start
            print(f"{np.dtype(dtype).name} n={n} " + summary(label, calls, seconds, flop, rows),
                  flush=True)
        ta = tb = None  # noqa: F841  (freed before the next dtype's operands)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
