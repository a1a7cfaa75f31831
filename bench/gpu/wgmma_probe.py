"""Can an OpenCL kernel reach Hopper's warpgroup MMA (PTX wgmma.mma_async, which needs the
sm_90a target)? Issue 11 item 4: mma.sync's TF32 rate (318 TFLOPS on the H200) bounds a
3xTF32 kernel at a third of it, and the kernel built on it stays near 44 TFLOPS.

1. A direct build: inline PTX wgmma in OpenCL C (NVIDIA's compiler targets sm_90).
2. The PTX route: the same kernel with its wgmma lines as PTX comments ("// @"), built,
   its PTX edited (comments made instructions, `.target sm_90` -> `sm_90a`) and loaded
   back as a program binary, as register_cap.py loads edited PTX.
3. If it builds: one warpgroup runs wgmma.m64nNk8.f32.tf32.tf32 with A from registers (the
   fragment layout of mma.sync's m16n8k8, a warp per 16 rows) and B from local memory
   through a matrix descriptor, K-major without swizzle: element (k, n) at byte
   (n / 8) 256 + (k / 4) 128 + (n % 8) 16 + (k % 4) 4. Both readings of which descriptor
   offset is which are tried; the result is compared with numpy (TF32-exact inputs).
4. Then the rate: a full grid of warpgroups, each a loop of wgmma's on the same operands.

    python3 bench/gpu/wgmma_probe.py          # with source .whl/setup.sh
"""

from __future__ import annotations

import re
import statistics

import numpy as np
import pyopencl as cl

from portgemm.runtime.queue import Queue

SOURCE = r"""
#define ND (N / 2)   /* accumulators a work-item: 64 N / 128 */

inline ulong descriptor(__local const float *base, const uint lbo, const uint sbo)
{
    const uint address = (uint)(size_t)base;
    return (ulong)((address & 0x3FFFF) >> 4) | ((ulong)(lbo >> 4) << 16)
           | ((ulong)(sbo >> 4) << 32);
}

inline void wgmma(float d[ND], const uint a[4], const ulong desc, const int accumulate)
{
    ASM("fence.proxy.async.shared::cta;");
    ASM("wgmma.fence.sync.aligned;");
    asm volatile(WGMMA_ASM : WGMMA_OUTS : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]),
                 "l"(desc), "r"(accumulate));
    ASM("wgmma.commit_group.sync.aligned;");
    ASM("wgmma.wait_group.sync.aligned 0;");
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void one(__global const float *A, __global const float *B, __global float *D,
         const uint lbo, const uint sbo)
{
    __local float Bs[N * 8 + 64] __attribute__((aligned(128)));
    const int tid = get_local_id(0), warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    for (int idx = tid; idx < N * 8; idx += 128) {
        const int k = idx / N, n = idx % N;
        Bs[(n / 8) * 64 + (k / 4) * 32 + (n % 8) * 4 + k % 4] = B[idx];  /* 256, 128 B */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint a[4];
    for (int i = 0; i < 4; ++i)
        a[i] = as_uint(A[(16 * warp + g + 8 * (i % 2)) * 8 + t + 4 * (i / 2)]);
    float d[ND];
    for (int i = 0; i < ND; ++i) d[i] = 0;
    wgmma(d, a, descriptor(Bs, lbo, sbo), 0);
    for (int i = 0; i < ND; ++i)
        D[(16 * warp + g + 8 * ((i % 4) / 2)) * N + 8 * (i / 4) + 2 * t + i % 2] = d[i];
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void rate(__global float *out, const int loops)
{
    __local float Bs[N * 8] __attribute__((aligned(128)));
    const int tid = get_local_id(0);
    for (int idx = tid; idx < N * 8; idx += 128) Bs[idx] = 1e-3f * idx;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint a[4];
    for (int i = 0; i < 4; ++i) a[i] = as_uint(1e-3f * (tid + i));
    float d[ND];
    for (int i = 0; i < ND; ++i) d[i] = 0;
    const ulong desc = descriptor(Bs, 128, 256);
    ASM("fence.proxy.async.shared::cta;");
    for (int n = 0; n < loops; ++n) {
        ASM("wgmma.fence.sync.aligned;");
        asm volatile(WGMMA_ASM : WGMMA_OUTS : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]),
                     "l"(desc), "r"(1));
        ASM("wgmma.commit_group.sync.aligned;");
        ASM("wgmma.wait_group.sync.aligned 1;");
    }
    ASM("wgmma.wait_group.sync.aligned 0;");
    float s = 0;
    for (int i = 0; i < ND; ++i) s += d[i];
    out[get_global_id(0)] = s;
}
"""


def source(n: int, as_comments: bool) -> str:
    """The kernels for m64n{n}k8, the wgmma lines real or as "// @" PTX comments."""
    nd = n // 2
    outs = ", ".join(f"%{i}" for i in range(nd))
    mark = "// @" if as_comments else ""
    asm = (f'"{mark}{{ .reg .pred p; setp.ne.b32 p, %{nd + 5}, 0; '
           f'wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 {{{outs}}}, '
           f'{{%{nd}, %{nd + 1}, %{nd + 2}, %{nd + 3}}}, %{nd + 4}, p, 1, 1; }}"')
    text = SOURCE.replace("WGMMA_ASM", asm)
    text = text.replace("WGMMA_OUTS", ", ".join(f'"+f"(d[{i}])' for i in range(nd)))
    text = text.replace('ASM("', f'asm volatile("{mark}')
    return f"#define N {n}\n" + text


def build(queue, n: int):
    """The program, directly or by the PTX route; None when neither builds."""
    try:
        program = cl.Program(queue.context, source(n, False)).build()
        print(f"m64n{n}k8: the direct build works", flush=True)
        return program
    except cl.Error as exc:
        print(f"m64n{n}k8: direct build fails: {first_error(exc)}", flush=True)
    program = cl.Program(queue.context, source(n, True)).build()
    ptx = bytes(program.get_info(cl.program_info.BINARIES)[0]).decode()
    edited = re.sub(r"\.target\s+sm_90\b", ".target sm_90a", ptx).replace("// @", "")
    version = re.search(r"\.version [0-9.]+", ptx).group(0)
    target = re.search(r"\.target \w+", edited).group(0)
    print(f"  PTX: {version}, {target}, {edited.count('wgmma.mma_async')} wgmma lines",
          flush=True)
    try:
        return cl.Program(queue.context, [queue.device.handle], [edited.encode()]).build()
    except cl.Error as exc:
        print(f"m64n{n}k8: the PTX route fails too: {first_error(exc)}", flush=True)
        return None


def first_error(exc) -> str:
    lines = [line for line in str(exc).splitlines() if "error" in line.lower()]
    return (lines[0] if lines else str(exc))[:300]


def check(queue, program, n: int) -> None:
    ctx, q = queue.context, queue.cl_queue
    rng = np.random.default_rng(n)
    tf32 = lambda x: ((x.view(np.uint32) + 0x1000) & 0xFFFFE000).view(np.float32)  # noqa: E731
    a = tf32(rng.uniform(-1, 1, (64, 8)).astype(np.float32))
    b = tf32(rng.uniform(-1, 1, (8, n)).astype(np.float32))
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    a_buf, b_buf = cl.Buffer(ctx, flags, hostbuf=a), cl.Buffer(ctx, flags, hostbuf=b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    one = cl.Kernel(program, "one")
    for lbo, sbo, label in ((128, 256, "LBO = K step 128, SBO = N step 256"),
                            (256, 128, "LBO = N step 256, SBO = K step 128")):
        d = np.full((64, n), np.nan, np.float32)
        d_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=d)
        # B is laid out with K-adjacent core matrices 128 bytes apart, N-adjacent 256
        one(q, (128,), (128,), a_buf, b_buf, d_buf, np.uint32(lbo), np.uint32(sbo))
        cl.enqueue_copy(q, d, d_buf)
        error = np.nanmax(np.abs(d - ref)) if not np.isnan(d).all() else float("nan")
        print(f"  m64n{n}k8 one wgmma ({label}): max |D - A B| = {error:.2e}, "
              f"{np.isnan(d).sum()} unwritten", flush=True)


def rate(queue, program, n: int) -> None:
    groups, loops = 132 * 8, 2000
    out = cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, groups * 128 * 4)
    kernel = cl.Kernel(program, "rate")
    times = []
    for _ in range(5):
        event = kernel(queue.cl_queue, (groups * 128,), (128,), out, np.int32(loops))
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-9)
    flops = 2.0 * 64 * n * 8 * loops * groups
    print(f"  m64n{n}k8 rate: {flops / statistics.median(times[1:]) / 1e12:.0f} TFLOPS tf32 "
          f"({groups} warpgroups, one wgmma in flight each)", flush=True)


def main():
    queue = Queue.for_device("gpu")
    print(queue.device.description, flush=True)
    for n in (8, 64, 128, 256):
        try:
            program = build(queue, n)
        except cl.Error as exc:
            print(f"m64n{n}k8: even the commented build fails: {first_error(exc)}", flush=True)
            continue
        if program is None:
            continue
        check(queue, program, n)
        rate(queue, program, n)


if __name__ == "__main__":
    main()
