import numpy as np, pyopencl as cl, statistics, sys
import portgemm
dev = portgemm.select_device(sys.argv[1])
K, N = int(sys.argv[2]), int(sys.argv[3])
W = 48
panels = -(-N // W)
ctx = cl.Context([dev.handle])
q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
src = r"""
#define W 48
#define VLOAD16(p) ((float16)((p)[0],(p)[1],(p)[2],(p)[3],(p)[4],(p)[5],(p)[6],(p)[7],(p)[8],(p)[9],(p)[10],(p)[11],(p)[12],(p)[13],(p)[14],(p)[15]))
__kernel void copy(__global const float *restrict B, __global float *restrict P, const int total) {
    const int i = get_global_id(0) * 256;
    for (int j = i; j < min(i + 256, total); ++j) P[j] = B[j];
}
__kernel void rows(const int N, const int K, __global const float *restrict B, const int ldb, __global float *restrict P) {
    const int k = get_global_id(0);
    if (k >= K) return;
    for (int panel = 0; panel * W < N; ++panel) {
        __global float *restrict to = P + ((long)panel * K + k) * W;
        #pragma unroll
        for (int x = 0; x < W; ++x) { const int j = panel * W + x; to[x] = j < N ? B[(long)k * ldb + j] : 0; }
    }
}
/* a work-item: R steps of one panel, whole rows of the panel as vectors where inside N */
__kernel void block(const int N, const int K, __global const float *restrict B, const int ldb, __global float *restrict P) {
    const int k0 = get_global_id(0) * R;
    const int panel = get_global_id(1);
    const int j0 = panel * W;
    for (int k = k0; k < min(k0 + R, K); ++k) {
        __global const float *from = B + (long)k * ldb + j0;
        __global float *to = P + ((long)panel * K + k) * W;
        if (j0 + W <= N) {
            float16 a = VLOAD16(from), b = VLOAD16(from + 16), c = VLOAD16(from + 32);
            vstore16(a, 0, to); vstore16(b, 0, to + 16); vstore16(c, 0, to + 32);
        } else {
            for (int x = 0; x < W; ++x) to[x] = j0 + x < N ? from[x] : 0;
        }
    }
}
__kernel void scalarpp(const int N, const int K, __global const float *restrict B, const int ldb, __global float *restrict P) {
    const int k0 = get_global_id(0) * R;
    const int p0 = get_global_id(1) * PP;
    for (int k = k0; k < min(k0 + R, K); ++k)
      for (int panel = p0; panel < p0 + PP && panel * W < N; ++panel) {
        const int j0 = panel * W;
        __global const float *restrict from = B + (long)k * ldb + j0;
        __global float *restrict to = P + ((long)panel * K + k) * W;
        if (j0 + W <= N) {
            #pragma unroll
            for (int x = 0; x < W; ++x) to[x] = from[x];
        } else {
            for (int x = 0; x < W; ++x) to[x] = j0 + x < N ? from[x] : 0;
        }
      }
}
/* a work-item: R steps of PP panels, a row's PP panels read front to back */
__kernel void blockpp(const int N, const int K, __global const float *restrict B, const int ldb, __global float *restrict P) {
    const int k0 = get_global_id(0) * R;
    const int p0 = get_global_id(1) * PP;
    for (int k = k0; k < min(k0 + R, K); ++k)
      for (int panel = p0; panel < p0 + PP && panel * W < N; ++panel) {
        const int j0 = panel * W;
        __global const float *from = B + (long)k * ldb + j0;
        __global float *to = P + ((long)panel * K + k) * W;
        if (j0 + W <= N) {
            float16 a = VLOAD16(from), b = VLOAD16(from + 16), c = VLOAD16(from + 32);
            vstore16(a, 0, to); vstore16(b, 0, to + 16); vstore16(c, 0, to + 32);
        } else {
            for (int x = 0; x < W; ++x) to[x] = j0 + x < N ? from[x] : 0;
        }
      }
}
"""
mf = cl.mem_flags
host = np.random.default_rng(0).standard_normal((K, N)).astype(np.float32)
B = cl.Buffer(ctx, mf.READ_ONLY | (mf.USE_HOST_PTR if "host" in sys.argv else mf.COPY_HOST_PTR), hostbuf=host)
print("host ptr" if "host" in sys.argv else "copied", host.ctypes.data % 4096)
P = cl.Buffer(ctx, mf.READ_WRITE, panels * W * K * 4)
ref = np.zeros((panels, K, W), np.float32)
padded = np.zeros((K, panels * W), np.float32); padded[:, :N] = host
ref[:] = padded.reshape(K, panels, W).transpose(1, 0, 2)
i32 = np.int32
def timeit(kernel, g, l, *args, check=True):
    ts = []
    for r in range(6):
        e = kernel(q, g, l, *args); e.wait()
        if r >= 1: ts.append((e.profile.end - e.profile.start) * 1e-6)
    if check:
        out = np.empty_like(ref); cl.enqueue_copy(q, out, P); assert np.array_equal(out, ref), "wrong"
    return statistics.median(ts)
mb = K * N * 4 / 1e6
prg0 = cl.Program(ctx, src).build(options=["-DR=1", "-DPP=1"])
t = timeit(prg0.copy, (-(-K * N // 256),), None, B, P, i32(K * N), check=False)
print(f"K={K} N={N}: plain copy {t:.2f} ms ({2 * mb / t:.1f} GB/s r+w)")
t = timeit(prg0.rows, (-(-K // 16) * 16,), (16,), i32(N), i32(K), B, i32(N), P)
print(f"  rows (a step a work-item): {t:.2f} ms ({2 * mb / t:.1f} GB/s)")
for R in ():
    prg = cl.Program(ctx, src).build(options=[f"-DR={R}", "-DPP=1"])
    for lanes in (1, 16):
        t = timeit(prg.block, (-(-K // R // lanes) * lanes, panels), (lanes, 1), i32(N), i32(K), B, i32(N), P)
        print(f"  block R={R} groups of {lanes} along K: {t:.2f} ms ({2 * mb / t:.1f} GB/s)")
for R, PP in ((16, 4), (16, 4)):
    prg = cl.Program(ctx, src).build(options=[f"-DR={R}", f"-DPP={PP}"])
    t = timeit(cl.Kernel(prg, "scalarpp"), (-(-K // R // 16) * 16, -(-panels // PP)), (16, 1), i32(N), i32(K), B, i32(N), P)
    print(f"  scalarpp R={R} PP={PP}: {t:.2f} ms ({2 * mb / t:.1f} GB/s)")
    t = timeit(prg.blockpp, (-(-K // R // 16) * 16, -(-panels // PP)), (16, 1), i32(N), i32(K), B, i32(N), P)
    print(f"  blockpp R={R} PP={PP}: {t:.2f} ms ({2 * mb / t:.1f} GB/s)")
