"""Calls on device arrays, waited for inside the call (portgemm before it queued them and
returned) against queued (matmul now), beside torch on CUDA tensors (TF32 off) where
there is one: per call, over a run of calls then one finish ("queued"), and with every
call finished before the next ("finished"). Sides in turns each round, median of each
side's best-of-3 over the rounds.
    python3 bench/device_calls.py [--device gpu] [--rounds 5] [--calls 20] [--shapes A@B,...]"""

import argparse
import statistics
import time
from contextlib import contextmanager

import numpy as np

import portgemm
from portgemm.backends.opencl import OpenCLBackend
from portgemm.bench.references import cuda_torch

from stacks import SHAPES_HELP, shape_pairs  # bench/stacks.py, beside this file

SHAPES = [((64, 64), (64, 64)), ((256, 64), (64, 256)), ((1024, 1024), (1024, 1024)),
          ((4096, 4096), (4096, 4096)), ((256, 32, 64), (256, 64, 32)),
          ((64, 2, 1000), (64, 1000, 50)), ((16, 512, 512), (16, 512, 512))]


@contextmanager
def waiting():
    """The calls wait for their kernels inside, as every call did before."""
    run, run_stack = OpenCLBackend.run, OpenCLBackend.run_stack
    OpenCLBackend.run = lambda self, *args, **kw: run(self, *args, **{**kw, "wait": True})
    OpenCLBackend.run_stack = lambda self, *args, **kw: run_stack(self, *args,
                                                                  **{**kw, "wait": True})
    try:
        yield
    finally:
        OpenCLBackend.run, OpenCLBackend.run_stack = run, run_stack


def per_call_ms(call, finish, calls: int) -> float:
    """Best of 3 of (``calls`` calls, then ``finish``) / calls."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        finish()
        best = min(best, (time.perf_counter() - start) * 1e3 / calls)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20, help="calls a queued run")
    parser.add_argument("--shapes", type=shape_pairs, default=SHAPES, help=SHAPES_HELP)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    torch = cuda_torch()
    print(f"device: {device.description}; torch: {'yes' if torch else 'no'}; "
          f"{args.calls} calls a queued run")
    rng = np.random.default_rng(0)
    for a_shape, b_shape in args.shapes:
        a = rng.standard_normal(a_shape).astype(np.float32)
        b = rng.standard_normal(b_shape).astype(np.float32)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        c = portgemm.matmul(a_dev, b_dev).get()
        error = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        queue = a_dev.queue

        def ours():
            portgemm.matmul(a_dev, b_dev)

        def waited():
            with waiting():
                portgemm.matmul(a_dev, b_dev)
        sides = {"waited": (waited, queue.finish), "queued": (ours, queue.finish)}
        if torch is not None:
            a_t, b_t = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
            sides["torch"] = (lambda: torch.matmul(a_t, b_t), torch.cuda.synchronize)
        times = {(side, mode): [] for side in sides for mode in ("queued", "finished")}
        for _ in range(args.rounds):
            for side, (call, finish) in sides.items():
                times[side, "queued"].append(per_call_ms(call, finish, args.calls))
                times[side, "finished"].append(
                    per_call_ms(lambda: (call(), finish()), lambda: None, args.calls))
        ms = {key: statistics.median(values) for key, values in times.items()}
        line = "; ".join(f"{mode}: " + ", ".join(f"{side} {ms[side, mode]:.3f}"
                                                 for side in sides)
                         for mode in ("queued", "finished"))
        print(f"{str(a_shape):>14} @ {str(b_shape):>14} ms a call: {line}; rel err {error:.1e}",
              flush=True)


if __name__ == "__main__":
    main()
