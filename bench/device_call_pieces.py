"""Where the host's time goes in a warm ``matmul`` of device arrays: the whole call (not
waited for), then each piece of it alone, and a bare pyopencl launch of the same kernels
(what the call cannot go below), per call in microseconds (best of 5 runs of REPS).
    python3 bench/device_call_pieces.py [--device gpu] [--size 64] [--reps 2000]"""

import argparse
import time

import numpy as np
import pyopencl.array as cl_array

import portgemm
from portgemm.api import _device
from portgemm.auto import choose
from portgemm.backends.opencl import (BACKEND, Transfer, largest_host_array, new_result,
                                      policy_for, queue_for, scratch)
from portgemm.families.launch import launch_plan
from portgemm.operands import as_operand, check_device_memory, check_operands, layout_of


def per_call_us(call, reps: int, finish=None) -> float:
    """Microseconds a call, the best of 5 runs of ``reps`` calls after a warm-up;
    ``finish`` (a queue's, say) ends each run inside its time."""
    finish = finish or (lambda: None)
    for _ in range(min(reps, 100)):
        call()
    finish()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(reps):
            call()
        finish()
        best = min(best, (time.perf_counter() - start) / reps * 1e6)
    return best


def call_arguments(doc: str):
    """(arguments, device) of the call-cost scripts: --device, --size, --reps."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--reps", type=int, default=2000)
    args = parser.parse_args()
    return args, portgemm.select_device(args.device)


def main() -> None:
    args, device = call_arguments(__doc__)
    n = args.size
    rng = np.random.default_rng(0)
    a, b = (portgemm.to_device(rng.standard_normal((n, n)).astype(np.float32), device)
            for _ in range(2))
    dtype = a.dtype
    resolved = BACKEND.resolve(device, "auto", None, (n, n, n), dtype)
    queue = queue_for(device, a, b)
    plan, sources, options = launch_plan(resolved.impl, tuple(resolved.params.items()),
                                         n, n, n, dtype, False, False)
    c = new_result(queue, (n, n), dtype, a, b)
    transfer = Transfer(queue, policy_for(queue.device), 0)
    arguments = {"A": a.base_data, "B": b.base_data, "C": c.base_data,
                 **scratch(queue, plan, transfer, dtype.itemsize)}
    i32 = np.int32
    arguments.update(M=i32(n), N=i32(n), K=i32(n), lda=i32(n), ldb=i32(n), ldc=i32(n))
    kernels = [queue.kernel(source, step.kernel, opts)
               for step, source, opts in zip(plan.steps, sources, options)]
    launches = [(kernel, step.ndrange,
                 [arguments[x] if isinstance(x, str) else i32(x) for x in step.args])
                for step, kernel in zip(plan.steps, kernels)]

    def bare():
        for kernel, ndrange, values in launches:
            queue.submit(kernel, ndrange, *values)

    pieces = {
        "matmul (not waited for)": lambda: portgemm.matmul(a, b),
        "gemm (waited for, timed)": lambda: portgemm.gemm(a, b),
        "check_operands": lambda: check_operands(a, b),
        "_device": lambda: _device(BACKEND, None, a, b),
        "check_device_memory": lambda: check_device_memory(device, a, b),
        "layout_of": lambda: layout_of(a, b),
        "choose": lambda: choose(device, n, n, n, dtype.itemsize),
        "resolve": lambda: BACKEND.resolve(device, "auto", None, (n, n, n), dtype),
        "queue_for": lambda: queue_for(device, a, b),
        "as_operand x2": lambda: (as_operand(a), as_operand(b)),
        "launch_plan": lambda: launch_plan(resolved.impl, tuple(resolved.params.items()),
                                           n, n, n, dtype, False, False),
        "new_result": lambda: new_result(queue, (n, n), dtype, a, b),
        "pyopencl empty": lambda: cl_array.empty(queue.cl_queue, (n, n), dtype,
                                                 allocator=queue.allocator),
        "Transfer": lambda: Transfer(queue, policy_for(queue.device),
                                     largest_host_array(a, b, c)),
        "scratch": lambda: scratch(queue, plan, transfer, dtype.itemsize),
        "queue.kernel": lambda: [queue.kernel(source, step.kernel, opts)
                                 for step, source, opts in zip(plan.steps, sources, options)],
        f"bare launch ({len(launches)} kernels)": bare,
    }
    print(f"device: {device.description}; {n}^3 float32, {resolved.variant} "
          f"{resolved.params}")
    for name, call in pieces.items():
        print(f"{name:32s} {per_call_us(call, args.reps):8.1f} us", flush=True)
        queue.finish()


if __name__ == "__main__":
    main()
