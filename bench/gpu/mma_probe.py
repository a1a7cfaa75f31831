"""Can an OpenCL kernel on an NVIDIA GPU reach the FP64 tensor cores? PTX's
`mma.sync ... .f64` through inline assembly (issue 11, item 3).

For each shape (m8n8k4 from sm_80; m16n8k4, m16n8k8, m16n8k16 from sm_90), one warp
loads A and B fragments by the layout assumed below, runs one mma and stores D by the
assumed layout; the result is checked against numpy (a wrong layout shows as a large
error, a shape the compiler refuses as a build error). Then a throughput kernel: every
warp of a full grid runs a loop of independent mma's (4 accumulators), timed by its
event, in TFLOPS.

Fragment layouts assumed (lane = g * 4 + t: g = lane / 4, t = lane % 4), from the PTX ISA:
  A (row-major, M x K): element i of the thread at row g + 8 * (i % 2), column
     t + 4 * (i / 2)   (m8n8k4: the one element at row g, column t)
  B (column-major, K x N): element i at row t + 4 * i, column g
  C, D (M x N): element i at row g + 8 * (i / 2), column 2 * t + i % 2

    python3 bench/gpu/mma_probe.py          # with source .whl/setup.sh
"""

from __future__ import annotations

import statistics

import numpy as np
import pyopencl as cl

from portgemm.runtime.queue import Queue

SHAPES = {"m8n8k4": (8, 8, 4), "m16n8k4": (16, 8, 4), "m16n8k8": (16, 8, 8),
          "m16n8k16": (16, 8, 16)}

SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define NA (SM * SK / 32)
#define NB (SK * SN / 32)
#define NC (SM * SN / 32)

/* d = a b + c for one warp, by inline PTX */
inline void mma(double *d, const double *a, const double *b, const double *c)
{
#if NA == 1
    asm volatile("mma.sync.aligned.SHAPE.row.col.f64.f64.f64.f64 "
                 "{%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(d[0]), "=d"(d[1]) : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));
#elif NA == 2
    asm volatile("mma.sync.aligned.SHAPE.row.col.f64.f64.f64.f64 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#elif NA == 4
    asm volatile("mma.sync.aligned.SHAPE.row.col.f64.f64.f64.f64 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]),
                   "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#else
    asm volatile("mma.sync.aligned.SHAPE.row.col.f64.f64.f64.f64 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, "
                 "{%16, %17, %18, %19};"
                 : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]),
                   "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]),
                   "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#endif
}

inline int a_row(int g, int t, int i) { return SM == 8 ? g : g + 8 * (i % 2); }
inline int a_col(int g, int t, int i) { return SM == 8 ? t : t + 4 * (i / 2); }
inline int c_row(int g, int t, int i) { return g + 8 * (i / 2); }
inline int c_col(int g, int t, int i) { return 2 * t + i % 2; }

__kernel void one(__global const double *A, __global const double *B, __global double *D)
{
    const int lane = get_local_id(0), g = lane / 4, t = lane % 4;
    double a[NA], b[NB], c[NC], d[NC];
    for (int i = 0; i < NA; ++i) a[i] = A[a_row(g, t, i) * SK + a_col(g, t, i)];
    for (int i = 0; i < NB; ++i) b[i] = B[(t + 4 * i) * SN + g];
    for (int i = 0; i < NC; ++i) c[i] = 0;
    mma(d, a, b, c);
    for (int i = 0; i < NC; ++i) D[c_row(g, t, i) * SN + c_col(g, t, i)] = d[i];
}

__kernel void rate(__global double *out, const int loops)
{
    const int lane = get_local_id(0);
    double a[NA], b[NB], c0[NC], c1[NC], c2[NC], c3[NC];
    for (int i = 0; i < NA; ++i) a[i] = 1e-3 * (lane + i);
    for (int i = 0; i < NB; ++i) b[i] = 1e-3 * (lane - i);
    for (int i = 0; i < NC; ++i) c0[i] = c1[i] = c2[i] = c3[i] = 0;
    for (int n = 0; n < loops; ++n) {
        mma(c0, a, b, c0);
        mma(c1, a, b, c1);
        mma(c2, a, b, c2);
        mma(c3, a, b, c3);
    }
    double s = 0;
    for (int i = 0; i < NC; ++i) s += c0[i] + c1[i] + c2[i] + c3[i];
    out[get_global_id(0)] = s;
}
"""


def main():
    queue = Queue.for_device("gpu")
    ctx, q = queue.context, queue.cl_queue
    print(queue.device.description, flush=True)
    rng = np.random.default_rng(0)
    for name, (m, n, k) in SHAPES.items():
        options = [f"-DSM={m}", f"-DSN={n}", f"-DSK={k}"]
        try:
            program = cl.Program(ctx, SOURCE.replace("SHAPE", name)).build(options=options)
        except cl.Error as exc:
            print(f"{name}: build failed: {str(exc)[:1500]}", flush=True)
            continue
        a = rng.uniform(-1, 1, (m, k))
        b = rng.uniform(-1, 1, (k, n))
        flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
        a_buf = cl.Buffer(ctx, flags, hostbuf=a)
        b_buf = cl.Buffer(ctx, flags, hostbuf=b)
        d = np.full((m, n), np.nan)
        d_buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=d)
        program.one(q, (32,), (32,), a_buf, b_buf, d_buf)
        cl.enqueue_copy(q, d, d_buf)
        error = np.nanmax(np.abs(d - a @ b)) if not np.isnan(d).all() else float("nan")
        print(f"{name}: one mma, max |D - A B| = {error:.2e} ({np.isnan(d).sum()} unwritten)",
              flush=True)
        groups, warps, loops = 132 * 16, 4, 2000
        out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, groups * warps * 32 * 8)
        times = []
        for _ in range(5):
            event = program.rate(q, (groups * warps * 32,), (warps * 32,), out, np.int32(loops))
            event.wait()
            times.append((event.profile.end - event.profile.start) * 1e-9)
        flops = 2.0 * m * n * k * 4 * loops * groups * warps
        print(f"{name}: {flops / statistics.median(times[1:]) / 1e12:.1f} TFLOPS float64 "
              f"({groups} groups of {warps} warps, 4 independent mma a loop)", flush=True)


if __name__ == "__main__":
    main()
