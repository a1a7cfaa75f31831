"""float32 on the TF32 tensor cores with float32's accuracy: `mma` in float32 ("3xTF32",
issue 11 item 4), beside cuBLAS's SGEMM (TF32 off) and, for scale, cuBLAS in TF32 (which
drops float32's accuracy), all in one run.

1. `rate`: what PTX's mma.sync.m16n8k8.tf32 delivers from OpenCL, a full grid of warps each
   running independent mma's in a loop (the ceiling of a 3xTF32 kernel is a third of it).
2. For each shape: kernel times (OpenCL events; CUDA events for cuBLAS, median of 10 after
   warm-up) and the relative error against float64 (cuBLAS's DGEMM of the same float32
   values) of cuBLAS SGEMM, cuBLAS TF32, portgemm's `auto` and `mma` (or --variant
   wgmma) with --params; the JSON keeps the last under "mma".

    python3 bench/gpu/tf32_split.py --params '{"WM": 2, "WN": 4, "MT": 4, "NT": 4}'
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np
import pyopencl as cl

import portgemm
from portgemm.runtime.queue import Queue
from portgemm.verify import relative_error

SHAPES = [(512, 512, 512), (1000, 1000, 1000), (2048, 2048, 2048), (4096, 4096, 4096),
          (4097, 4097, 4097), (8192, 8192, 8192), (256, 256, 65536)]

RATE = r"""
inline void mma(float *d, const uint *a, const uint *b)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__kernel void rate(__global float *out, const int loops)
{
    const int lane = get_local_id(0);
    uint a[4], b[2];
    float c[4][4];
    for (int i = 0; i < 4; ++i) a[i] = as_uint(1e-3f * (lane + i));
    for (int i = 0; i < 2; ++i) b[i] = as_uint(1e-3f * (lane - i));
    for (int j = 0; j < 4; ++j) for (int i = 0; i < 4; ++i) c[j][i] = 0;
    for (int n = 0; n < loops; ++n)
        for (int j = 0; j < 4; ++j) mma(c[j], a, b);
    float s = 0;
    for (int j = 0; j < 4; ++j) for (int i = 0; i < 4; ++i) s += c[j][i];
    out[get_global_id(0)] = s;
}
"""


def tf32_rate(queue) -> float:
    """TFLOPS of independent mma.sync.m16n8k8.tf32 over a full grid."""
    kernel = cl.Kernel(cl.Program(queue.context, RATE).build(), "rate")
    groups, warps, loops = 132 * 16, 4, 4000
    out = cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, groups * warps * 32 * 4)
    times = []
    for _ in range(5):
        event = kernel(queue.cl_queue, (groups * warps * 32,), (warps * 32,), out,
                       np.int32(loops))
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-9)
    return 2.0 * 16 * 8 * 8 * 4 * loops * groups * warps / statistics.median(times[1:]) / 1e12


def cublas(a, b, tf32: bool, reps=10):
    """(median ms, float32 result) of torch's a @ b with TF32 off or on."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = tf32
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for _ in range(3):
        c = ta @ tb
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        c = ta @ tb
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    torch.backends.cuda.matmul.allow_tf32 = False
    return statistics.median(times), c.cpu().numpy()


def float64_reference(a, b):
    import torch

    return (torch.from_numpy(a).cuda().double() @ torch.from_numpy(b).cuda().double()).cpu().numpy()


def portgemm_run(queue, a, b, reps=10, **kwargs):
    """(median kernel ms, result, variant) on device-resident operands."""
    import pyopencl.array as cla

    a_dev, b_dev = cla.to_device(queue.cl_queue, a), cla.to_device(queue.cl_queue, b)
    runs = [portgemm.gemm(a_dev, b_dev, device=queue.device, **kwargs) for _ in range(reps + 2)]
    last = runs[-1]
    return statistics.median(r.kernel_ms for r in runs[2:]), last.c.get(), last


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--variant", default="mma", help="the 3xTF32 family: mma or wgmma")
    p.add_argument("--params", type=json.loads, default={})
    p.add_argument("--json", default="tf32_split.json")
    p.add_argument("--shapes", default="")
    args = p.parse_args()
    queue = Queue.for_device("gpu")
    print(queue.device.description, flush=True)
    print(f"mma.sync.m16n8k8.tf32: {tf32_rate(queue):.0f} TFLOPS (4 independent a warp)",
          flush=True)
    shapes = ([tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
              if args.shapes else SHAPES)
    rows = []
    print(f"shape | cuBLAS f32 ms err | cuBLAS tf32 ms err | auto ms err | {args.variant} ms err "
          f"| {args.variant} TFLOPS, of cuBLAS f32", flush=True)
    for m, n, k in shapes:
        rng = np.random.default_rng([m, n, k])
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        ref = float64_reference(a, b)
        row = {"shape": [m, n, k]}
        for label, run in (("cublas_f32", lambda: cublas(a, b, False)),
                           ("cublas_tf32", lambda: cublas(a, b, True)),
                           ("auto", lambda: portgemm_run(queue, a, b)),
                           ("mma", lambda: portgemm_run(queue, a, b, variant=args.variant,
                                                        params=args.params))):
            ms, c, *result = run()
            row[label] = {"ms": ms, "error": relative_error(c, ref)}
            if result:
                row[label].update(variant=result[0].variant, params=result[0].params)
        import torch

        torch.cuda.empty_cache()
        tflops = 2 * m * n * k / row["mma"]["ms"] / 1e9
        print(f"{m}x{n}x{k} | " + " | ".join(
            f"{row[x]['ms']:.3f} {row[x]['error']:.1e}"
            for x in ("cublas_f32", "cublas_tf32", "auto", "mma"))
            + f" | {tflops:.1f}, {row['cublas_f32']['ms'] / row['mma']['ms']:.1%}"
            + f" (auto: {row['auto']['variant']})", flush=True)
        rows.append(row)
    with open(args.json, "w") as f:
        json.dump({"device": queue.device.description, "params": args.params, "rows": rows},
                  f, indent=1)


if __name__ == "__main__":
    main()
