"""Ways to copy a row-major K x N B into vec's panels of 48 columns (K-major, zeros past
N), each checked against numpy and timed on its event beside a plain copy.

    python packx.py opencl:cpu:1 4096 4096 [host]    # host: B a USE_HOST_PTR buffer

rows: a work-item copies one whole step of B into every panel. steps x panels: a
work-item copies R steps of PP neighbouring panels, a full panel's run copied one value
at a time (VECTOR=0) or as three float16 (VECTOR=1). pack.cl's pack_b is R=16, PP=4,
VECTOR=0.
"""

import statistics
import sys

import numpy as np
import pyopencl as cl

import portgemm

SOURCE = r"""
#define W 48
#define V16(p) ((float16)((p)[0], (p)[1], (p)[2], (p)[3], (p)[4], (p)[5], (p)[6], (p)[7], \
                          (p)[8], (p)[9], (p)[10], (p)[11], (p)[12], (p)[13], (p)[14], (p)[15]))
__kernel void copy(__global const float *restrict B, __global float *restrict P,
                   const int total) {
    const int i = get_global_id(0) * 256;
    for (int j = i; j < min(i + 256, total); ++j) P[j] = B[j];
}
/* row k of B into a step of every panel: the run from j0, or zeros past N */
inline void copy_run(const int N, const int K, __global const float *restrict B,
                     const int ldb, __global float *restrict P, const int k, const int panel) {
    const int j0 = panel * W;
    __global const float *restrict from = B + (long)k * ldb + j0;
    __global float *restrict to = P + ((long)panel * K + k) * W;
    if (j0 + W <= N) {
#if VECTOR
        vstore16(V16(from), 0, to); vstore16(V16(from + 16), 0, to + 16);
        vstore16(V16(from + 32), 0, to + 32);
#else
        #pragma unroll
        for (int x = 0; x < W; ++x) to[x] = from[x];
#endif
    } else {
        for (int x = 0; x < W; ++x) to[x] = j0 + x < N ? from[x] : 0;
    }
}
__kernel void rows(const int N, const int K, __global const float *restrict B,
                   const int ldb, __global float *restrict P) {
    const int k = get_global_id(0);
    if (k < K)
        for (int panel = 0; panel * W < N; ++panel) copy_run(N, K, B, ldb, P, k, panel);
}
__kernel void steps_panels(const int N, const int K, __global const float *restrict B,
                           const int ldb, __global float *restrict P) {
    const int k0 = get_global_id(0) * R, p0 = get_global_id(1) * PP;
    for (int k = k0; k < min(k0 + R, K); ++k)
        for (int panel = p0; panel < p0 + PP && panel * W < N; ++panel)
            copy_run(N, K, B, ldb, P, k, panel);
}
"""


def main():
    device = portgemm.select_device(sys.argv[1])
    k, n = int(sys.argv[2]), int(sys.argv[3])
    host_pointer = "host" in sys.argv[4:]
    panels = -(-n // 48)
    context = cl.Context([device.handle])
    queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
    b = np.random.default_rng(0).standard_normal((k, n)).astype(np.float32)
    flags = cl.mem_flags.READ_ONLY | (cl.mem_flags.USE_HOST_PTR if host_pointer
                                      else cl.mem_flags.COPY_HOST_PTR)
    source = cl.Buffer(context, flags, hostbuf=b)
    packed = cl.Buffer(context, cl.mem_flags.READ_WRITE, panels * 48 * k * 4)
    padded = np.zeros((k, panels * 48), np.float32)
    padded[:, :n] = b
    expected = np.ascontiguousarray(padded.reshape(k, panels, 48).transpose(1, 0, 2))
    i32 = np.int32
    megabytes = k * n * 4 / 1e6

    def timed(label, kernel, global_size, local_size, *args, check=True):
        times = []
        for rep in range(6):
            event = kernel(queue, global_size, local_size, *args)
            event.wait()
            if rep:
                times.append((event.profile.end - event.profile.start) * 1e-6)
        if check:
            out = np.empty_like(expected)
            cl.enqueue_copy(queue, out, packed)
            assert np.array_equal(out, expected), label
        ms = statistics.median(times)
        print(f"  {label}: {ms:.2f} ms ({2 * megabytes / ms:.1f} GB/s read + written)")

    print(f"K={k} N={n}, B {'a host pointer' if host_pointer else 'copied'}")
    for r, pp, vector in ((1, 1, 0), (16, 4, 0), (16, 4, 1), (16, 2, 0), (8, 4, 0),
                          (32, 4, 0), (16, 8, 0), (16, 1, 1)):
        program = cl.Program(context, SOURCE).build(
            options=[f"-DR={r}", f"-DPP={pp}", f"-DVECTOR={vector}"])
        if (r, pp) == (1, 1):
            timed("plain copy", cl.Kernel(program, "copy"), (-(-k * n // 256),), None,
                  source, packed, i32(k * n), check=False)
            timed("rows (a step a work-item)", cl.Kernel(program, "rows"),
                  (-(-k // 16) * 16,), (16,), i32(n), i32(k), source, i32(n), packed)
            continue
        timed(f"{r} steps x {pp} panels, {'vectors' if vector else 'values'}",
              cl.Kernel(program, "steps_panels"), (-(-k // r // 16) * 16, -(-panels // pp)),
              (16, 1), i32(n), i32(k), source, i32(n), packed)


if __name__ == "__main__":
    main()
