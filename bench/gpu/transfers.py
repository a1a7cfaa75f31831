"""Host <-> GPU transfers on the machine of the device tool: raw rates (pageable, pinned,
threaded copies into pinned memory, first touch of fresh pages), matmul's wall time with
numpy in and out under each transfer policy beside torch's, and a resident call's wall
time against its kernel time.

    python3 bench/gpu/transfers.py --json transfers.json
    python3 bench/gpu/transfers.py --mb 1,4,16 --shapes 1024x1024x1024,2048x512x2048 --json mid.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

import portgemm
from portgemm.backends import transfers
from portgemm.runtime import Queue


def median_ms(fn, reps=5, warmup=1):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def raw_rates(device, nbytes=256 * 2**20, reps=5):
    import pyopencl as cl

    queue = Queue.for_device(device)
    q = queue.cl_queue
    host = np.ones(nbytes // 4, np.float32)
    back = np.empty_like(host)
    buffer = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=nbytes)
    other = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=nbytes)
    pinned = portgemm.empty_pinned(host.shape, np.float32, device)
    pinned[...] = 1
    rates = {}

    def gbs(ms, count=1):
        return round(count * nbytes / (ms * 1e6), 2)

    rates["pageable_up_gbs"] = gbs(median_ms(lambda: cl.enqueue_copy(q, buffer, host).wait(),
                                             reps=reps))
    rates["pageable_down_gbs"] = gbs(median_ms(lambda: cl.enqueue_copy(q, back, buffer).wait(),
                                               reps=reps))
    rates["pinned_up_gbs"] = gbs(median_ms(lambda: cl.enqueue_copy(q, buffer, pinned).wait(),
                                           reps=reps))
    rates["pinned_down_gbs"] = gbs(median_ms(lambda: cl.enqueue_copy(q, pinned, buffer).wait(),
                                             reps=reps))
    rates["device_copy_gbs_read_plus_write"] = gbs(median_ms(
        lambda: cl.enqueue_copy(q, other, buffer).wait(), reps=10), count=2)
    for threads in (1, 4, 8, 16):
        transfers.COPY_THREADS = threads
        rates[f"memcpy_into_pinned_{threads}t_gbs"] = gbs(median_ms(
            lambda: transfers.parallel_copy(pinned.view(np.uint8), host.view(np.uint8))))
    transfers.COPY_THREADS = 8
    rates["staged_up_gbs"] = gbs(median_ms(lambda: (transfers.staged_upload(queue, host, buffer),
                                                    q.finish()), reps=reps))
    rates["staged_down_gbs"] = gbs(median_ms(lambda: transfers.staged_download(queue, buffer, back),
                                             reps=reps))
    rates["first_touch_gbs"] = gbs(median_ms(lambda: np.ones(nbytes // 4, np.float32), reps=reps))
    start = time.perf_counter()
    portgemm.empty_pinned((nbytes // 4,), np.float32, device)
    rates["pin_new_ms"] = round((time.perf_counter() - start) * 1e3, 2)
    return rates


def walls(device, shapes):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    found = []
    for m, n, k in shapes:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        row = {"m": m, "n": n, "k": k}
        row["torch_wall_ms"] = median_ms(
            lambda: (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy())
        for policy in ("staged", "copy"):
            os.environ[transfers.TRANSFER_ENV_VAR] = policy
            result = {}

            def call():
                result["r"] = portgemm.gemm(a, b, device=device)
            row[f"{policy}_wall_ms"] = median_ms(call)
            row[f"{policy}_kernel_ms"] = result["r"].kernel_ms
        os.environ.pop(transfers.TRANSFER_ENV_VAR)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        resident = {}

        def resident_call():
            resident["r"] = portgemm.gemm(a_dev, b_dev)
        row["resident_wall_ms"] = median_ms(resident_call, reps=10, warmup=2)
        row["resident_kernel_ms"] = resident["r"].kernel_ms
        ref = a.astype(np.float64) @ b
        c = portgemm.matmul(a, b, device=device)
        row["relerr"] = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        found.append(row)
        print(row, flush=True)
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="transfers.json")
    p.add_argument("--mb", default="256", help="sizes of the raw rates, MiB, comma-separated")
    p.add_argument("--shapes", default="2048x2048x2048,4096x4096x4096,8192x8192x8192,"
                   "8192x256x8192", help="matmul's wall times at these MxNxK")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    rates = {}
    for mb in (float(x) for x in args.mb.split(",")):
        rates[f"{mb:g}MiB"] = raw_rates(device, int(mb * 2**20), reps=5 if mb >= 64 else 21)
        print(mb, "MiB", rates[f"{mb:g}MiB"], flush=True)
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    rows = walls(device, shapes)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rates": rates, "walls": rows}, f, indent=1)


if __name__ == "__main__":
    main()
