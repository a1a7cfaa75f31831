"""tallskinny's rows as vectors (ROWVEC, auto's form on a CPU) against another way to run
the same product on a CPU device, kernel time, numpy's wall time taken turn about with
each (portgemm.bench.runner.turn_about):

    python bench/rowvec.py --device intel --against lanes [--orders CC,CF]
        the lanes' form: groups of one SIMD width, a step of K a lane (ROWVEC=0)
    python bench/rowvec.py --device pocl --against auto --sizes 4096x8x4096,...
        whatever auto takes (on PoCL a tall C goes to vec by its size)
"""

import argparse
import os
import statistics
from math import ceil

import numpy as np

import portgemm
from portgemm.auto.tallskinny import MAX_TERMS, cpu_row_params, row_tile
from portgemm.auto.traits import traits
from portgemm.bench.references import numpy_call_ms
from portgemm.bench.runner import parse_sizes, turn_about

SIZES = {"lanes": "8x8x4194304,3x3x8388608,5x5x4194304,16x16x2097152,1x1x16777216,"
                  "4096x1x4096,4096x8x4096,16384x3x16384",
         "auto": "4096x1x4096,4096x2x4096,4096x4x4096,4096x8x4096,4096x12x4096,"
                 "4096x16x4096,4096x24x4096,16384x8x2048,50000x8x1024"}


def lanes_params(known, m, n, k):
    """The lanes' form as auto sized it before ROWVEC: groups of the SIMD width, each
    work-item at most MAX_TERMS steps, ROWVEC's tile."""
    simd = 1 << max(0, known.simd - 1).bit_length()
    tile = row_tile(m, n)
    return {"GS": max(1, ceil(k / (MAX_TERMS * simd))), "BS": simd, "tile_y": tile[0],
            "tile_x": tile[1]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--against", choices=sorted(SIZES), default="lanes")
    parser.add_argument("--sizes")
    parser.add_argument("--orders", default="CC", help="A's and B's layouts, C or F each")
    parser.add_argument("--reps", type=int, default=6)
    args = parser.parse_args()
    if "OPENBLAS_CORETYPE" in os.environ:
        print("note: OPENBLAS_CORETYPE is set; numpy runs slower than it can")
    device = portgemm.select_device(args.device)
    known = traits(device)
    print(f"{device.description}: simd {known.simd}, {known.compute_units} compute units")
    rng = np.random.default_rng(0)
    for m, n, k in parse_sizes(args.sizes or SIZES[args.against]):
        rows, _ = cpu_row_params(known, m, n, k)
        other = lanes_params(known, m, n, k) if args.against == "lanes" else None
        for order in args.orders.split(","):
            a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
            b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
            a = np.asfortranarray(a) if order[0] == "F" else a
            b = np.asfortranarray(b) if order[1] == "F" else b
            numpy_ms, kernel_ms, names = [], [], []
            for variant, params in (("tallskinny", rows),
                                    ("tallskinny" if other else "auto", other)):
                def call():
                    return portgemm.gemm(a, b, device=device, variant=variant, params=params)
                runs, beside = turn_about(call, numpy_call_ms(a, b), args.reps)
                kernel_ms.append(statistics.median(r.kernel_ms for r in runs))
                names.append(runs[0].variant)
                numpy_ms.extend(beside)
            rows_ms, other_ms = kernel_ms
            print(f"{m}x{n}x{k} {order}: ROWVEC {rows_ms:8.2f} ms | {args.against} "
                  f"({names[1]}) {other_ms:8.2f} ms ({other_ms / rows_ms:5.2f}x ROWVEC) | "
                  f"numpy {statistics.median(numpy_ms):8.2f} ms | ROWVEC "
                  f"{(m + n) * k * a.itemsize / rows_ms / 1e6:5.1f} GB/s", flush=True)


if __name__ == "__main__":
    main()
