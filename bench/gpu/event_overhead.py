"""What a short kernel's OpenCL event measures on the GPU: each launch waited for before
the next (as the bench and the records time them) against launches queued back to back
(the next one submitted while this one runs), for an empty kernel, tallskinny at
K = 2^21 (auto's parameters) and cuBLAS (CUDA events around each call, the same two ways).

    python3 bench/gpu/event_overhead.py --json event_overhead.json
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.backends.opencl import launch_plan
from portgemm.bench.references import time_cublas
from portgemm.families import get_variant
from portgemm.runtime.ndrange import NDRange

from tallskinny_parts import EMPTY
from shapes import copy_bandwidth

REPS = 30


def opencl_times(launch, queued: bool) -> dict:
    """Median event time and start-to-start spacing (us) of REPS calls of ``launch``
    (which submits a plan's kernels and returns their events), waited for one by one or
    queued."""
    calls = []
    for _ in range(REPS):
        calls.append(launch())
        if not queued:
            calls[-1][-1].wait()
    calls[-1][-1].wait()
    durations = [sum(e.kernel_ms for e in events) * 1e3 for events in calls[2:]]
    spacing = [(b[0].start_ns - a[0].start_ns) * 1e-3 for a, b in zip(calls[2:], calls[3:])]
    return {"event_us": statistics.median(durations), "start_to_start_us":
            statistics.median(spacing)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="event_overhead.json")
    p.add_argument("--sizes", default="3,5,8,9")
    p.add_argument("--k", type=int, default=1 << 21)
    args = p.parse_args()
    import pyopencl as cl

    device = portgemm.select_device(args.device)
    queue = portgemm.Queue.for_device(device)
    copy_gbs = copy_bandwidth(device)
    rows = []
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)
    empty = queue.kernel(EMPTY, "empty")
    row = {"kernel": "empty"}
    for mode in ("waited", "queued"):
        row[mode] = opencl_times(lambda: [queue.submit(empty, NDRange(256, 256), buf)],
                                 mode == "queued")
    rows.append(row)
    print(json.dumps(row), flush=True)
    rng = np.random.default_rng(3)
    i32 = np.int32
    for mn in map(int, args.sizes.split(",")):
        k = args.k
        a = rng.uniform(-1, 1, (mn, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, mn)).astype(np.float32)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        chosen = choose(device, mn, mn, k)
        plan, sources, options = launch_plan(get_variant(chosen.variant), tuple(chosen.params.items()), mn,
                                             mn, k, np.dtype(np.float32), False, False)
        kernels = [queue.kernel(source, step.kernel, option)
                   for step, source, option in zip(plan.steps, sources, options)]
        c = cl.array.empty(queue.cl_queue, (mn, mn), np.float32)
        values = {"A": a_dev.data, "B": b_dev.data, "C": c.data, "M": i32(mn), "N": i32(mn),
                  "K": i32(k), "lda": i32(k), "ldb": i32(mn), "ldc": i32(mn)}
        for index, elements in enumerate(plan.workspace):
            values[f"W{index}"] = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE,
                                            elements * 4)
        if plan.counters:
            values["Z0"] = queue.zeroed_counters(plan.counters)
        calls = [(kernel, step.ndrange, [values[x] if isinstance(x, str) else i32(x)
                                         for x in step.args])
                 for kernel, step in zip(kernels, plan.steps)]

        def launch():
            return [queue.submit(kernel, nd, *call) for kernel, nd, call in calls]

        ideal_us = 2 * mn * k * 4 / copy_gbs * 1e-3
        row = {"kernel": f"{chosen.variant} {mn}x{mn}x{k}", "params": chosen.params,
               "ideal_us": ideal_us}
        for mode in ("waited", "queued"):
            got = opencl_times(launch, mode == "queued")
            got["of_copy_bw"] = ideal_us / got["event_us"]
            cublas = time_cublas(a, b, REPS - 2, warmup=2, queued=mode == "queued")
            row[mode] = {**got, "cublas": cublas and {"event_us": cublas.ms * 1e3}}
        ref = a.astype(np.float64) @ b
        row["relerr"] = float(np.linalg.norm(c.get() - ref) / np.linalg.norm(ref))
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "copy_gbs": copy_gbs, "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
