"""What one kernel launch costs the host through pyopencl, by how it is made: on a queue
with profiling and without, with pyopencl's scalar types declared (as Queue.submit
does) or its arguments set one by one, few or many arguments, with an event to wait for
or not. Per launch in microseconds, the best of 5 runs of REPS launches queued back to
back (then one finish), the kernel empty; beside it a torch launch of an empty-sized op.

    python3 bench/gpu/launch_cost.py [--device gpu] [--reps 2000] [--json launch_cost.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pyopencl as cl

import portgemm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from device_call_pieces import per_call_us  # noqa: E402 (bench/, beside this folder)

SOURCE = """
__kernel void few(__global float *C, int n) { if (get_global_id(0) < n) C[0] = 0; }
__kernel void many(__global const float *A, __global const float *B, __global float *C,
                   int M, int N, int K, int lda, int ldb, int ldc)
{ if (get_global_id(0) < M) C[0] = A[0] + B[0] + N + K + lda + ldb + ldc; }
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--json")
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    context = cl.Context([device.handle])
    program = cl.Program(context, SOURCE).build()
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 1 << 20)
    i32 = np.int32
    rows = {}
    for profiling in (False, True):
        props = cl.command_queue_properties.PROFILING_ENABLE if profiling else 0
        queue = cl.CommandQueue(context, properties=props)
        few, many = cl.Kernel(program, "few"), cl.Kernel(program, "many")
        few.set_scalar_arg_dtypes([None, i32])
        many.set_scalar_arg_dtypes([None, None, None] + [i32] * 6)
        gate = cl.enqueue_marker(queue)
        queue.finish()
        label = "profiling" if profiling else "plain"
        cases = {
            "few, typed": lambda: few(queue, (128,), (128,), buffer, 1),
            "many, typed": lambda: many(queue, (128,), (128,), buffer, buffer, buffer,
                                        1, 1, 1, 1, 1, 1),
            "many, typed, no local size": lambda: many(queue, (128,), None, buffer, buffer,
                                                       buffer, 1, 1, 1, 1, 1, 1),
            "many, typed, wait_for an event": lambda: many(
                queue, (128,), (128,), buffer, buffer, buffer, 1, 1, 1, 1, 1, 1,
                wait_for=[gate]),
        }
        raw = cl.Kernel(program, "many")

        def set_and_enqueue():
            raw.set_args(buffer, buffer, buffer, i32(1), i32(1), i32(1), i32(1), i32(1),
                         i32(1))
            cl.enqueue_nd_range_kernel(queue, raw, (128,), (128,))
        cases["many, set_args then enqueue"] = set_and_enqueue
        for name, launch in cases.items():
            rows[f"{label}: {name}"] = round(per_call_us(launch, args.reps, queue.finish),
                                             2)
            print(f"{label:10s} {name:36s} {rows[f'{label}: {name}']:8.2f} us", flush=True)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        x = torch.zeros(32, device="cuda")
        rows["torch: x.add_(1)"] = round(per_call_us(lambda: x.add_(1), args.reps,
                                                     torch.cuda.synchronize), 2)
        print(f"{'torch':10s} {'x.add_(1)':36s} {rows['torch: x.add_(1)']:8.2f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device.description, "per_launch_us": rows}, f, indent=1)


if __name__ == "__main__":
    main()
