"""How fast the kernels of kernels_cl/pack.cl copy B into panels, alone: each kernel's
event per layout of B (row- and column-major), median over rounds in which the kernels
take turns, with the GB/s read plus written. Run it from two checkouts to compare a
change to the kernels (each imports its own tree's portgemm and kernels_cl).

    python bench/pack_times.py --device intel --sizes 1024,4096,64x16384 --width 48
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import portgemm
from portgemm.families.launch import kernel_options
from portgemm.families.packing import pack_b_step
from portgemm.families.sources import read_kernel


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="opencl:cpu:0")
    parser.add_argument("--sizes", default="512,1024,2048,4096",
                        help="N or NxK: B is K x N (a size N is N x N)")
    parser.add_argument("--width", type=int, default=48, help="columns of a panel")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import pyopencl as cl

    device = portgemm.select_device(args.device)
    queue = portgemm.Queue.for_device(device)
    print(device.description)
    i32 = np.int32
    for size in args.sizes.split(","):
        n, k = (list(map(int, size.split("x"))) * 2)[:2]
        for order in ("C", "F"):
            b = np.asarray(np.random.default_rng(0).standard_normal((k, n)), np.float32,
                           order=order)
            source = cl.Buffer(queue.context, cl.mem_flags.READ_ONLY
                               | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.ravel(b, order="K"))
            ldb = i32(n if order == "C" else k)
            ways = {}
            for by_rows in (False, True):
                step, elements = pack_b_step(n, k, args.width, "W0", by_rows=by_rows)
                kernel = queue.kernel(read_kernel(step.source_file), step.kernel,
                                      kernel_options(step.defines, np.dtype(np.float32), False,
                                               order == "F"))
                panels = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, elements * 4)
                ways[step.kernel] = (kernel, step.ndrange, panels, [])
            for _ in range(args.rounds):
                for kernel, ndrange, panels, times in ways.values():
                    time.sleep(0.003)  # each launch from an idle queue, as in a call
                    event = queue.submit(kernel, ndrange, i32(n), i32(k), source, ldb, panels)
                    event.wait()
                    times.append(event.kernel_ms)
            cells = []
            for name, (_, _, _, times) in ways.items():
                ms = statistics.median(times)
                cells.append(f"{name} {ms:.3f} ms ({2 * n * k * 4 / ms / 1e6:.1f} GB/s)")
            layout = "row-major" if order == "C" else "column-major"
            print(f"B {k}x{n} {layout:12s} " + "   ".join(cells), flush=True)


if __name__ == "__main__":
    main()
