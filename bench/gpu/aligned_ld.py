"""4097^3 on the GPU (issue 11: >= 85% of cuBLAS): how much of its loss against 4096 is the
odd leading dimension (no aligned vector loads) and how much the extra row and column of
tiles? The xgemm kernel of `auto`'s large entry, launched directly on device buffers with
lda = ldb = 4097 (as the arrays lie) and with rows padded to 4100 (what an upload into
aligned rows would give), and the device-side copy that pads one operand, from events.

    python3 bench/gpu/aligned_ld.py [DEVICE [SIZES]]   # with source .whl/setup.sh
    python bench/gpu/aligned_ld.py opencl:cpu:0 129,131   # a dry run on a CPU
"""

from __future__ import annotations

import statistics
import sys

import numpy as np
import pyopencl as cl

from portgemm.backends.opencl import launch_plan
from portgemm.families import get_variant
from portgemm.runtime.queue import Queue

from shapes import cublas_ms

PARAMS = {"MWG": 128, "NWG": 128, "KWG": 16, "MDIMC": 16, "NDIMC": 16, "VW": 4, "VWM": 4,
          "VWN": 2, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 16}


def kernel_ms(queue, n, ld, reps=10):
    variant = get_variant("xgemm")
    params = variant.check(PARAMS, queue.device, 4)
    plan, sources, options = launch_plan(variant, tuple(params.items()), n, n, n,
                                         np.dtype(np.float32), False, False)
    step = plan.steps[0]
    kernel = queue.kernel(sources[0], step.kernel, options[0])
    rng = np.random.default_rng(0)
    host = rng.uniform(-1, 1, (n, ld)).astype(np.float32)
    a = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                  hostbuf=host)
    b = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                  hostbuf=host)
    c = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, n * n * 4)
    i32 = np.int32
    times = []
    for rep in range(reps + 3):
        event = queue.submit(kernel, step.ndrange, i32(n), i32(n), i32(n), a, i32(ld), b,
                             i32(ld), c, i32(n))
        if rep >= 3:
            times.append(event.kernel_ms)
    out = np.empty((n, n), np.float32)
    cl.enqueue_copy(queue.cl_queue, out, c)
    ref = host[:, :n].astype(np.float64) @ host[:, :n]
    err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    return statistics.median(times), err


def pad_copy_ms(queue, n, ld, reps=10):
    """One operand's rows re-laid from pitch n to pitch ld, device to device."""
    src = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, n * n * 4)
    dst = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, n * ld * 4)
    times = []
    for rep in range(reps + 2):
        event = cl.enqueue_copy(queue.cl_queue, dst, src, src_origin=(0, 0),
                                dst_origin=(0, 0), region=(n * 4, n),
                                src_pitches=(n * 4,), dst_pitches=(ld * 4,))
        event.wait()
        if rep >= 2:
            times.append((event.profile.end - event.profile.start) * 1e-6)
    return statistics.median(times)


def main():
    queue = Queue.for_device(sys.argv[1] if len(sys.argv) > 1 else "gpu")
    print(queue.device.description)
    rng = np.random.default_rng(1)
    sizes = sys.argv[2] if len(sys.argv) > 2 else "4096,4097,4099,5000"
    for n in map(int, sizes.split(",")):
        ref = cublas_ms(*(rng.uniform(-1, 1, (n, n)).astype(np.float32),) * 2)
        padded = -(-n // 4) * 4
        rows = [("as they lie", n)] + ([("rows padded to a multiple of 4", padded)]
                                       if padded != n else [])
        for label, ld in rows:
            ms, err = kernel_ms(queue, n, ld)
            line = (f"n={n} ld={ld} ({label}): kernel {ms:.3f} ms = "
                    f"{2 * n ** 3 / ms / 1e9:.1f} TFLOPS, relerr {err:.1e}")
            if ref:
                line += f"; {ref / ms:.1%} of cuBLAS ({ref:.3f} ms)"
            if ld != n:
                pad = pad_copy_ms(queue, n, ld)
                line += (f"; padding both operands on the device {2 * pad:.3f} ms -> "
                         f"with it {ref / (ms + 2 * pad):.1%} of cuBLAS" if ref else "")
            print(line, flush=True)


if __name__ == "__main__":
    main()
