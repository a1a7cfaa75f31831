"""A grid-stride dot product of two float streams (phvm's loads without its elements):
work-item t adds x[k] * y[k] for k = t, t + G, t + 2G, ... (G = GS * BS, GS odd), each
run of `steps` steps; time (events, median of 5 after one) and GB/s against the run:
    python walk.py K BS
"""
import statistics
import sys

import numpy as np
import pyopencl as cl

import portgemm

SOURCE = """
__kernel __attribute__((reqd_work_group_size(BS, 1, 1)))
void walk(__global const float *x, __global const float *y, const int K, __global float *out)
{
    const int t = get_global_id(0), G = get_global_size(0);
    float acc = 0;
    for (int k = t; k < K; k += G)
        acc = fma(x[k], y[k], acc);
    __local float part[BS];
    part[get_local_id(0)] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        float sum = 0;
        for (int i = 0; i < BS; ++i)
            sum += part[i];
        out[get_group_id(0)] = sum;
    }
}"""
k, bs = int(sys.argv[1]), int(sys.argv[2])
dev = portgemm.select_device("intel")
ctx = cl.Context([dev.handle])
queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
walk = cl.Kernel(cl.Program(ctx, SOURCE).build(f"-DBS={bs}"), "walk")
flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
x = cl.Buffer(ctx, flags, hostbuf=np.ones(k, np.float32))
y = cl.Buffer(ctx, flags, hostbuf=np.ones(k, np.float32))
print(dev.description, f"K={k} BS={bs}")
for steps in (4, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024, 2048):
    gs = max(1, k // (steps * bs)) | 1
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, gs * 4)
    walk.set_args(x, y, np.int32(k), out)
    times = []
    for _ in range(6):
        event = cl.enqueue_nd_range_kernel(queue, walk, (gs * bs,), (bs,))
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-6)
    t = statistics.median(times[1:])
    print(f"steps={steps:5d} GS={gs:7d} stride={4 * gs * bs / 1024:8.0f} KB "
          f"{t:7.2f} ms {2 * k * 4 / t / 1e6:6.1f} GB/s", flush=True)
