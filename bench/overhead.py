"""Warm matmul call overhead against a bare pyopencl launch of the same kernel and copies.

    python bench/overhead.py [--device SPEC] [--size 64] [--reps 2000]
"""

import argparse
import statistics
import time

import numpy as np
import pyopencl as cl

import portgemm
from portgemm.backends.opencl import build_options
from portgemm.runtime import Queue
from portgemm.auto import choose
from portgemm.families import get_variant


def bare_launch(queue, kernel, a, b, c, global_size, local_size):
    """What a hand-written pyopencl program does: two uploads, a launch, a download."""
    ctx, q = queue.context, queue.cl_queue
    mf = cl.mem_flags
    buf_a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    buf_b = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    buf_c = cl.Buffer(ctx, mf.READ_WRITE, size=c.nbytes)
    n = np.int32(a.shape[0])
    kernel.set_args(n, n, n, buf_a, n, buf_b, n, buf_c, n)
    event = cl.enqueue_nd_range_kernel(q, kernel, global_size, local_size)
    cl.enqueue_copy(q, c, buf_c, wait_for=[event], is_blocking=True)


def timed_in_turn(fns, reps):
    """Median microseconds of each function, called in turn and in a rotating order (a b c,
    b c a, c a b, ...): a shared machine's drift, PoCL's thread wake-ups and whatever the
    previous call leaves behind fall on all of them alike."""
    samples = [[] for _ in fns]
    for rep in range(reps):
        for i in range(len(fns)):
            index = (rep + i) % len(fns)
            start = time.perf_counter()
            fns[index]()
            samples[index].append(time.perf_counter() - start)
    return [statistics.median(times) * 1e6 for times in samples]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--reps", type=int, default=2000)
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    n = args.size
    a = np.random.rand(n, n).astype(np.float32)
    b = np.random.rand(n, n).astype(np.float32)
    choice = choose(device, n, n, n)
    variant = get_variant(choice.variant)
    params = variant.check(choice.params, device)
    queue = Queue.for_device(device)
    options = build_options(variant, params, a.dtype, False, False)
    kernel = cl.Kernel(queue.program(variant.source, options), "gemm")  # its own object
    plan = variant.plan(n, n, n, params)
    sizes = plan.ndrange.opencl_sizes()
    c = np.empty((n, n), np.float32)

    for _ in range(50):
        portgemm.matmul(a, b, device=device)
        bare_launch(queue, kernel, a, b, c, *sizes)
    for _ in range(3):
        bare, ours, ours_dev = timed_in_turn(
            [lambda: bare_launch(queue, kernel, a, b, c, *sizes),
             lambda: portgemm.matmul(a, b, device=device),
             lambda: portgemm.matmul(a, b, device=device.filter_string)], args.reps)
        print(f"{device.description} {n}x{n}x{n} {choice.variant}: bare pyopencl {bare:.1f} us, "
              f"matmul(device=Device) {ours:.1f} us ({ours / bare:.2f}x), "
              f"matmul(device='{device.filter_string}') {ours_dev:.1f} us ({ours_dev / bare:.2f}x)")


if __name__ == "__main__":
    main()
