"""Warm matmul call overhead against a bare pyopencl launch of the same kernels and copies.

    python bench/overhead.py [--device SPEC] [--size 64] [--reps 2000] [--variant naive]

The variant is what ``auto`` picks (default) or the one named; a plan of several kernels
(panel's packing kernels, a reduction) is launched bare kernel after kernel, with its
workspace buffers made in the call as a hand-written program would.
"""

import argparse
import statistics
import time

import numpy as np
import pyopencl as cl

import portgemm
from portgemm.backends.opencl import launch_plan
from portgemm.runtime import Queue
from portgemm.auto import choose
from portgemm.families import get_variant


def bare_launch(queue, plan, kernels, a, b, c):
    """What a hand-written pyopencl program does: two uploads, the launches (with their
    scratch buffers), a download."""
    ctx, q = queue.context, queue.cl_queue
    mf = cl.mem_flags
    n = np.int32(a.shape[0])
    args = {"A": cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a),
            "B": cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b),
            "C": cl.Buffer(ctx, mf.READ_WRITE, size=c.nbytes),
            "M": n, "N": n, "K": n, "lda": n, "ldb": n, "ldc": n}
    for index, elements in enumerate(plan.workspace):
        args[f"W{index}"] = cl.Buffer(ctx, mf.READ_WRITE, size=elements * a.itemsize)
    event = None
    for step, kernel in zip(plan.steps, kernels):
        kernel.set_args(*(args[x] if isinstance(x, str) else np.int32(x) for x in step.args))
        event = cl.enqueue_nd_range_kernel(q, kernel, *step.ndrange.opencl_sizes())
    cl.enqueue_copy(q, c, args["C"], wait_for=[event], is_blocking=True)


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
    p.add_argument("--variant", default="auto")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    n = args.size
    a = np.random.rand(n, n).astype(np.float32)
    b = np.random.rand(n, n).astype(np.float32)
    if args.variant == "auto":
        choice = choose(device, n, n, n)
        name, params = choice.variant, choice.params
    else:
        name, params = args.variant, None
    variant = get_variant(name)
    params = variant.check(params, device)
    queue = Queue.for_device(device)
    plan, sources, options = launch_plan(variant, tuple(params.items()), n, n, n, a.dtype,
                                         False, False)
    kernels = [cl.Kernel(queue.program(source, opts), step.kernel)  # objects of their own
               for step, source, opts in zip(plan.steps, sources, options)]
    c = np.empty((n, n), np.float32)

    def ours(spec):
        return portgemm.matmul(a, b, device=spec, variant=args.variant,
                               params=None if args.variant == "auto" else params)

    for _ in range(50):
        ours(device)
        bare_launch(queue, plan, kernels, a, b, c)
    for _ in range(3):
        bare, by_device, by_spec = timed_in_turn(
            [lambda: bare_launch(queue, plan, kernels, a, b, c),
             lambda: ours(device), lambda: ours(device.filter_string)], args.reps)
        print(f"{device.description} {n}x{n}x{n} {name} ({len(plan.steps)} kernel"
              f"{'s' if len(plan.steps) > 1 else ''}): bare pyopencl {bare:.1f} us, "
              f"matmul(device=Device) {by_device:.1f} us ({by_device / bare:.2f}x), "
              f"matmul(device='{device.filter_string}') {by_spec:.1f} us "
              f"({by_spec / bare:.2f}x)")


if __name__ == "__main__":
    main()
