"""Where a tall-skinny product's kernel time goes: each launch of tallskinny's plan
(the partial tiles, then the sum of the slices unless FUSE) timed by its own OpenCL
event, beside the device's copy bandwidth and an empty kernel's event time, for a few
GS x BS and each way of summing (REDUCE, FUSE).

    python3 bench/gpu/tallskinny_parts.py [--json parts.json] [--k 2097152] [--device gpu]
        [--sizes 3,5,8] [--grid | --configs 128x512,256x256] [--modes 00,10,11]
        [--tile 16x16] [--tg 4] [--ku 2] [--auto]

--grid sweeps GS x BS over 64..1024 x 128..1024 instead of six points, --configs names
the GS x BS points. The tile is the bandwidth model's (all of C where it has at most 128
values, else 8 x N) unless --tile; --tg is the tiles a work-group holds (TG), --ku the
steps of K a work-item loads at once.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.backends.opencl import launch_plan
from portgemm.families import get_variant

from shapes import copy_bandwidth

SHAPES = (3, 5, 7, 8, 9, 16)
CONFIGS = ((128, 512), (256, 256), (512, 256), (256, 512), (64, 512), (128, 256))
MODES = ((0, 0), (1, 0), (1, 1))  # (REDUCE, FUSE)
EMPTY = "__kernel void empty(__global float *x) { if (get_global_id(0) == 1u << 30) x[0] = 1; }"


def parts(queue, variant, params, a_dev, b_dev, reps=10, patch=None):
    """Median event time (ms) of each step of the plan, of the gap between them, and
    of the whole span from the first start to the last end; patch, if given, rewrites
    each kernel's source before it is built (an experiment's ablation)."""
    import pyopencl as cl

    (m, k), n = a_dev.shape, b_dev.shape[1]
    dtype = np.dtype(a_dev.dtype)
    params = variant.resolve(params)  # the defaults of any parameter not named
    plan, sources, options = launch_plan(variant, tuple(params.items()), m, n, k, dtype,
                                         False, False)
    if patch is not None:
        sources = [patch(source) for source in sources]
    kernels = [queue.kernel(s, step.kernel, o) for step, s, o in zip(plan.steps, sources, options)]
    c = cl.array.empty(queue.cl_queue, (m, n), dtype)
    i32 = np.int32
    args = {"A": a_dev.data, "B": b_dev.data, "C": c.data, "M": i32(m), "N": i32(n),
            "K": i32(k), "lda": i32(k), "ldb": i32(n), "ldc": i32(n)}
    for index, elements in enumerate(plan.workspace):
        args[f"W{index}"] = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE,
                                      elements * dtype.itemsize)
    if plan.counters:
        args["Z0"] = queue.zeroed_counters(plan.counters)
    rows = []
    for _ in range(reps + 2):
        events = [queue.submit(kernel, step.ndrange,
                               *[args[x] if isinstance(x, str) else i32(x) for x in step.args])
                  for step, kernel in zip(plan.steps, kernels)]
        events[-1].wait()
        rows.append([e.kernel_ms for e in events]
                    + [(events[-1].end_ns - events[0].start_ns) * 1e-6])
    med = [statistics.median(col) for col in zip(*rows[2:])]
    return {"steps_ms": med[:-1], "span_ms": med[-1], "plan_groups": plan.ndrange.group_range[0],
            "c": c.get()}


def empty_kernel_ms(queue, reps=20, groups=1, size=256):
    """Median event time (ms) of the empty kernel over groups x size work-items."""
    import pyopencl as cl

    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)
    kernel = queue.kernel(EMPTY, "empty")
    ndrange = portgemm.runtime.ndrange.NDRange(groups * size, size)
    times = [queue.submit(kernel, ndrange, buf).kernel_ms for _ in range(reps)]
    return statistics.median(times[2:])


def baseline(spec: str):
    """(device, queue, copy GB/s, empty kernel ms) for the device of ``spec``, the
    measurements every record of a short kernel starts with, printed."""
    device = portgemm.select_device(spec)
    queue = portgemm.Queue.for_device(device)
    copy_gbs = copy_bandwidth(device, nbytes=2**28 if device.type == "cpu" else 2**31)
    empty = empty_kernel_ms(queue)
    print(f"{device}: copy {copy_gbs:.0f} GB/s, empty kernel {empty * 1e3:.1f} us", flush=True)
    return device, queue, copy_gbs, empty


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--k", type=int, action="append")
    parser.add_argument("--sizes", default=",".join(map(str, SHAPES)))
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--tile", help="tile_y x tile_x for every shape, e.g. 16x16")
    parser.add_argument("--tg", type=int, default=1, help="tiles a work-group holds")
    parser.add_argument("--ku", type=int, default=1, help="steps of K loaded at once")
    parser.add_argument("--configs", help="GS x BS points, e.g. 128x512,256x256")
    parser.add_argument("--modes", default=",".join(f"{r}{f}" for r, f in MODES))
    parser.add_argument("--auto", action="store_true",
                        help="time the steps of auto's choice (any variant) instead")
    args = parser.parse_args()
    device, queue, copy_gbs, empty = baseline(args.device)
    variant = get_variant("tallskinny")
    rng = np.random.default_rng(1)
    records = {"device": str(device), "copy_gbs": copy_gbs, "empty_ms": empty, "rows": []}
    configs = (list(itertools.product((64, 128, 256, 512, 1024, 2048), (64, 128, 256, 512, 1024)))
               if args.grid else CONFIGS)
    if args.configs:
        configs = [tuple(map(int, point.split("x"))) for point in args.configs.split(",")]
    modes = [(int(m[0]), int(m[1])) for m in args.modes.split(",")]
    for k in args.k or [1 << 21]:
        for mn in map(int, args.sizes.split(",")):
            a = rng.uniform(-1, 1, (mn, k)).astype(np.float32)
            b = rng.uniform(-1, 1, (k, mn)).astype(np.float32)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
            ideal_ms = 2 * mn * k * 4 / copy_gbs * 1e-6
            tile = (mn, mn) if mn * mn <= 128 else (8, mn)
            if args.tile:
                tile = tuple(min(mn, int(x)) for x in args.tile.split("x"))
            if args.auto:
                chosen = choose(device, mn, mn, k)
                got = parts(queue, get_variant(chosen.variant), chosen.params, a_dev, b_dev)
                err = float(np.linalg.norm(got.pop("c") - ref) / np.linalg.norm(ref))
                records["rows"].append({"m": mn, "k": k, "variant": chosen.variant,
                                        "params": chosen.params, **got, "relerr": err})
                shown = {x: chosen.params[x] for x in ("MWG", "NWG", "KSPLIT", "GS", "BS")
                         if x in chosen.params}
                print(f"{mn:2d}x{mn:<2d} K={k} auto {chosen.variant} {shown} steps "
                      + " + ".join(f"{t * 1e3:6.1f}" for t in got["steps_ms"])
                      + f" us  span {got['span_ms'] * 1e3:6.1f} us  ideal {ideal_ms * 1e3:5.1f} us"
                      f"  {ideal_ms / sum(got['steps_ms']):.0%} of copy BW  err {err:.1e}",
                      flush=True)
                continue
            for (gs, bs), (reduce, fuse) in itertools.product(configs, modes):
                params = {"GS": gs, "BS": bs, "tile_y": tile[0], "tile_x": tile[1],
                          "REDUCE": reduce, "FUSE": fuse, "TG": args.tg, "KU": args.ku}
                got = parts(queue, variant, params, a_dev, b_dev)
                err = float(np.linalg.norm(got.pop("c") - ref) / np.linalg.norm(ref))
                row = {"m": mn, "k": k, **params, **got, "relerr": err,
                       "copy_bw_ms": ideal_ms, "of_copy_bw": ideal_ms / sum(got["steps_ms"])}
                records["rows"].append(row)
                print(f"{mn:2d}x{mn:<2d} K={k} tile {tile[0]}x{tile[1]} TG={args.tg} "
                      f"KU={args.ku} GS={gs:4d} BS={bs:4d} R{reduce}F{fuse} steps "
                      + " + ".join(f"{t * 1e3:6.1f}" for t in got["steps_ms"])
                      + f" us  span {got['span_ms'] * 1e3:6.1f} us  ideal {ideal_ms * 1e3:5.1f} us"
                      f"  {row['of_copy_bw']:.0%} of copy BW  err {err:.1e}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
