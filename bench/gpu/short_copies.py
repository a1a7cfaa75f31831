"""What the device itself reaches on the bytes of issue 9's short K: for each M = N, the
(M + N) * K * 4 bytes that tallskinny reads, moved by a plain device copy (half of them
copied: the same traffic) and read by a streaming kernel, beside tallskinny itself, each
timed by OpenCL events (median of 20 after 3) and given as a share of the copy bandwidth
of 2 GiB that shapes.py measures (issue 9's yardstick).

    python3 bench/gpu/short_copies.py --json short_copies.json [--k 2097152] [--sizes 3,5,7,8,9,16]
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

import portgemm
from portgemm.runtime.ndrange import NDRange

from shapes import copy_bandwidth

REPS = 23
READ = r"""
__kernel void stream_read(__global const float4 *x, const int count, __global float *out)
{
    float4 acc = (float4)(0.0f);
    for (int i = get_global_id(0); i < count; i += get_global_size(0))
        acc += x[i];
    if (acc.x == 12345.0f)  /* keeps the loads, writes nothing */
        out[0] = acc.y + acc.z + acc.w;
}
"""


def median_us(submit) -> float:
    times = []
    for _ in range(REPS):
        event = submit()
        event = getattr(event, "cl_event", event)  # portgemm's Event or pyopencl's
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-3)
    return statistics.median(times[3:])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="short_copies.json")
    p.add_argument("--sizes", default="3,5,7,8,9,16")
    p.add_argument("--k", type=int, default=1 << 21)
    args = p.parse_args()
    import pyopencl as cl

    device = portgemm.select_device(args.device)
    queue = portgemm.Queue.for_device(device)
    copy_gbs = copy_bandwidth(device)
    print(f"{device.description}: copy bandwidth of 2 GiB {copy_gbs:.0f} GB/s", flush=True)
    read = queue.kernel(READ, "stream_read")
    out = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)
    rows = []
    for mn in map(int, args.sizes.split(",")):
        nbytes = 2 * mn * args.k * 4
        src = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, nbytes)
        dst = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, nbytes // 2)
        cl.enqueue_fill_buffer(queue.cl_queue, src, np.float32(1), 0, nbytes).wait()
        copy_us = median_us(lambda: cl.enqueue_copy(queue.cl_queue, dst, src,
                                                    byte_count=nbytes // 2))
        reads = {}
        for groups in (device.compute_units, 2 * device.compute_units, 4 * device.compute_units):
            for size in (256, 512, 1024):
                reads[f"{groups}x{size}"] = median_us(lambda: queue.submit(
                    read, NDRange(groups * size, size), src, np.int32(nbytes // 16), out))
        best = min(reads, key=reads.get)
        rng = np.random.default_rng(1)
        a = rng.uniform(-1, 1, (mn, args.k)).astype(np.float32)
        b = rng.uniform(-1, 1, (args.k, mn)).astype(np.float32)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        runs = [portgemm.gemm(a_dev, b_dev, device=device) for _ in range(REPS)]
        ts_us = statistics.median(r.kernel_ms for r in runs[3:]) * 1e3
        ideal_us = nbytes / copy_gbs * 1e-3
        row = {"m": mn, "n": mn, "k": args.k, "bytes": nbytes, "ideal_us": ideal_us,
               "copy_us": copy_us, "copy_of_copy_bw": ideal_us / copy_us,
               "read_us": reads[best], "read_grid": best, "read_of_copy_bw": ideal_us / reads[best],
               "tallskinny_us": ts_us, "tallskinny_of_copy_bw": ideal_us / ts_us,
               "tallskinny": runs[-1].variant, "reads": reads}
        rows.append(row)
        print(f"{mn}x{mn}x{args.k}: {nbytes / 1e6:.1f} MB, ideal {ideal_us:.1f} us; copy "
              f"{copy_us:.1f} us ({100 * ideal_us / copy_us:.1f}%), read {reads[best]:.1f} us "
              f"({100 * ideal_us / reads[best]:.1f}%, {best}), {runs[-1].variant} {ts_us:.1f} us "
              f"({100 * ideal_us / ts_us:.1f}%)", flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "copy_gbs": copy_gbs, "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
