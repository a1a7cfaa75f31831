"""Where split-K's extra time goes (issue 11, item 5): the layers' GEMM kernel and the sum
of the slices (kernels_cl/reduce.cl), each on its own event, for the large preset on
square shapes with KSPLIT = 1-4; and, on the same workspace, a flat sum of 4 consecutive
elements a work-item (C contiguous, vload4/vstore4) for comparison. GB/s counts the
slices read and C written.

    python3 bench/gpu/splitk_parts.py                  # with source .whl/setup.sh
    python bench/gpu/splitk_parts.py --device opencl:cpu:0 --sizes 129 --splits 1,3
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
import pyopencl as cl

from portgemm.backends.opencl import launch_plan
from portgemm.families import get_variant
from portgemm.families.xgemm import GPU_DEFAULTS
from portgemm.runtime.ndrange import NDRange
from portgemm.runtime.queue import Queue

FLAT_SUM = r"""
__kernel void sum_flat(const int total, const int S, __global const float *restrict W,
                       __global float *restrict C)
{
    const long e = 4 * (long)get_global_id(0);
    if (e + 4 <= total) {
        float4 acc = vload4(0, W + e);
        for (int s = 1; s < S; ++s)
            acc += vload4(0, W + (long)s * total + e);
        vstore4(acc, 0, C + e);
    } else {
        for (long f = e; f < total; ++f) {
            float acc = W[f];
            for (int s = 1; s < S; ++s)
                acc += W[(long)s * total + f];
            C[f] = acc;
        }
    }
}
"""


def events_ms(queue, launch, reps):
    times = []
    for rep in range(reps + 2):
        event = launch()
        if rep >= 2:
            times.append(event.kernel_ms)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--sizes", default="4096,4097,3000,5000")
    parser.add_argument("--splits", default="1,2,3,4")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    queue = Queue.for_device(args.device)
    print(queue.device.description, flush=True)
    variant = get_variant("xgemm")
    flat = cl.Kernel(cl.Program(queue.context, FLAT_SUM).build(), "sum_flat")
    i32 = np.int32
    for n in map(int, args.sizes.split(",")):
        host = np.random.default_rng(n).uniform(-1, 1, (n, n)).astype(np.float32)
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        a = cl.Buffer(queue.context, flags, hostbuf=host)
        c = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, n * n * 4)
        for split in map(int, args.splits.split(",")):
            params = variant.check(dict(GPU_DEFAULTS, KSPLIT=split), queue.device, 4)
            plan, sources, options = launch_plan(variant, tuple(params.items()), n, n, n,
                                                 np.dtype(np.float32), False, False)
            gemm = queue.kernel(sources[0], plan.steps[0].kernel, options[0])
            out = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE,
                            split * n * n * 4) if split > 1 else c
            gemm_ms = events_ms(queue, lambda: queue.submit(
                gemm, plan.steps[0].ndrange, i32(n), i32(n), i32(n), a, i32(n), a, i32(n),
                out, i32(n)), args.reps)
            line = f"n={n} KSPLIT={split}: gemm {gemm_ms:.3f} ms"
            if split > 1:
                step = plan.steps[1]
                total = n * n
                moved = (split + 1) * total * 4
                kernel = queue.kernel(sources[1], step.kernel, options[1])
                ms = events_ms(queue, lambda: queue.submit(
                    kernel, step.ndrange, i32(n), i32(n), i32(split), out, c, i32(n)),
                    args.reps)
                line += (f"; sum (reduce.cl, {dict(step.defines)}, groups of "
                         f"{step.ndrange.work_group_size}) {ms:.3f} ms "
                         f"({moved / ms / 1e6:.0f} GB/s)")
                groups = -(-total // 4)
                flat_nd = NDRange.covering((groups,), (256,))
                ms = events_ms(queue, lambda: queue.submit(
                    flat, flat_nd, i32(total), i32(split), out, c), args.reps)
                line += f"; flat float4 sum {ms:.3f} ms ({moved / ms / 1e6:.0f} GB/s)"
            print(line, flush=True)


if __name__ == "__main__":
    main()
