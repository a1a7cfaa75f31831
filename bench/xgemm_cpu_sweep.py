"""Time xgemm (and the other variants) against the host BLAS, and sweep xgemm parameters.

    python bench/xgemm_cpu_sweep.py                       # Intel CPU device, 1024 and 2048
    python bench/xgemm_cpu_sweep.py --sweep cpu           # plus a small CPU-oriented sweep
    python bench/xgemm_cpu_sweep.py --device gpu --sizes 1024 4096 --sweep gpu --torch

Kernel times come from OpenCL profiling events: the median of --reps runs after one
warm-up run. The host reference is numpy's ``a @ b`` (OpenBLAS) timed in the same process;
with --torch also cuBLAS through torch (TF32 off), timed with CUDA events, as the bench
times them (`portgemm.bench.references`). Every
configuration's result is checked against a float64 reference once (at the first size).
For numpy's own best, run without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE set.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import portgemm  # noqa: E402
from portgemm.bench.references import time_cublas, time_numpy  # noqa: E402
from portgemm.families import get_variant  # noqa: E402
from portgemm.families.xgemm import CPU_DEFAULTS, GPU_DEFAULTS, PORTABLE_DEFAULTS  # noqa: E402
from portgemm.verify import reference, relative_error, tolerance  # noqa: E402


def gflops(n_m, n_n, n_k, ms):
    return 2.0 * n_m * n_n * n_k / (ms * 1e-3) / 1e9


def time_variant(device, variant, params, a, b, reps, check):
    result = portgemm.gemm(a, b, device=device, variant=variant, params=params,
                           poison=np.nan if check else None)
    if check:
        err = relative_error(result.c, reference(a, b))
        if not err <= tolerance(a.dtype, a.shape[1]):
            raise AssertionError(f"{variant} {params}: relative error {err:.2e}")
    times = [portgemm.gemm(a, b, device=device, variant=variant, params=params).kernel_ms
             for _ in range(reps)]
    return statistics.median(times)


def cpu_sweep():
    """VW = VWM = VWN = 1 and plain order (neighbouring work-items read neighbouring
    addresses, which is what the Intel CPU runtime's vectoriser wants), over tile and
    work-group shapes, K slab depth and double buffering."""
    for mwg, nwg, mdimc, ndimc, kwg in [
            (128, 128, 32, 32, 64), (128, 128, 32, 32, 32), (128, 128, 32, 32, 128),
            (128, 64, 32, 16, 64), (128, 64, 32, 16, 128), (64, 64, 16, 16, 64),
            (96, 64, 16, 16, 64), (128, 96, 32, 16, 64), (256, 128, 64, 32, 32),
            (128, 128, 16, 32, 64), (192, 128, 32, 32, 32), (128, 256, 32, 64, 32)]:
        for db in (0, 1):
            yield dict(CPU_DEFAULTS, MWG=mwg, NWG=nwg, MDIMC=mdimc, NDIMC=ndimc, KWG=kwg,
                       VW=1, VWM=1, VWN=1, PAD=0, DOUBLE_BUFFER=db, WARPN=min(ndimc, 32))


def gpu_sweep():
    """Around the NVIDIA-style preset: 128-bit global loads, 8 x 8 or 16 x 8 per
    work-item, the K slab fully unrolled, double buffered."""
    base = dict(GPU_DEFAULTS)
    for vwn, pad in itertools.product([2, 4], [0, 1]):
        yield dict(base, VWN=vwn, PAD=pad)                                   # 128 x 128
        yield dict(base, MWG=256, VWN=vwn, PAD=pad)                          # 16 x 8 each
    for warpn in (8, 16):
        for mwg, nwg, kwg in [(128, 64, 16), (64, 128, 16), (128, 64, 32), (64, 128, 32)]:
            yield dict(base, MWG=mwg, NWG=nwg, KWG=kwg, KUNROLL=kwg, WARPN=warpn)
    for pad in (0, 1):                                                     # 512 items
        yield dict(base, NWG=256, NDIMC=32, WARPN=32, PAD=pad)
        yield dict(base, NWG=256, NDIMC=32, WARPN=16, PAD=pad)
        yield dict(base, MWG=256, MDIMC=32, PAD=pad)
    yield dict(base, KWG=8, KUNROLL=8, VWN=4)
    yield dict(base, KWG=32, KUNROLL=32)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--sweep", choices=["none", "cpu", "gpu"], default="none")
    parser.add_argument("--variants", nargs="*", default=["tiled", "local"])
    parser.add_argument("--torch", action="store_true", help="also time cuBLAS via torch")
    parser.add_argument("--all-presets", action="store_true", help="also time the other "
                        "device type's preset (the GPU one is very slow on CPUs)")
    parser.add_argument("--top", type=int, default=5, help="sweep winners re-timed at "
                        "every size")
    parser.add_argument("--rank-size", type=int, help="size the sweep is timed at "
                        "(default: the first of --sizes)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)

    device = portgemm.select_device(args.device)
    dtype = np.dtype(args.dtype)
    print(f"device: {device.description}; dtype {dtype}; kernel ms = median of "
          f"{args.reps} after a warm-up; OPENBLAS_CORETYPE="
          f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}", flush=True)
    impl = get_variant("xgemm")
    rng = np.random.default_rng(0)
    operands = {n: (rng.standard_normal((n, n)).astype(dtype),
                    rng.standard_normal((n, n)).astype(dtype)) for n in args.sizes}
    results = {"device": device.description, "dtype": str(dtype), "rows": []}

    def record(label, n, ms, params=None):
        row = {"label": label, "n": n, "ms": round(ms, 4),
               "gflops": round(gflops(n, n, n, ms), 1), "params": params}
        results["rows"].append(row)
        print(f"  {label:<14} n={n:<5} {ms:9.3f} ms {row['gflops']:9.1f} GFLOPS"
              + (f"  {json.dumps(params, separators=(',', ':'))}" if params else ""),
              flush=True)
        return row

    for n, (a, b) in operands.items():
        record("numpy", n, time_numpy(a, b, args.reps, warmup=1).ms)
        if args.torch:
            cublas = time_cublas(a, b, args.reps, warmup=1)
            if cublas is None:
                raise SystemExit("--torch: torch with CUDA is not available here")
            record("torch-cuda", n, cublas.ms)
        fixed = [("xgemm-gpu", GPU_DEFAULTS) if device.type == "gpu" else
                 ("xgemm-cpu", CPU_DEFAULTS), ("xgemm-portable", PORTABLE_DEFAULTS)]
        if args.all_presets:
            fixed.append(("xgemm-cpu", CPU_DEFAULTS) if device.type == "gpu" else
                         ("xgemm-gpu", GPU_DEFAULTS))
        for label, params in fixed:
            if impl.problems(impl.resolve(params), device, dtype.itemsize):
                continue
            record(label, n, time_variant(device, "xgemm", params, a, b, args.reps,
                                          n == args.sizes[0]), params)
        for name in args.variants:
            record(name, n, time_variant(device, name, None, a, b, args.reps,
                                         n == args.sizes[0]))

    if args.sweep != "none":
        candidates = []
        for params in (cpu_sweep() if args.sweep == "cpu" else gpu_sweep()):
            try:
                resolved = impl.resolve(params)
            except portgemm.ParameterError:
                continue
            if not impl.problems(resolved, device, dtype.itemsize) and resolved not in candidates:
                candidates.append(resolved)
        first = args.rank_size or args.sizes[0]
        if first not in operands:
            operands[first] = (rng.standard_normal((first, first)).astype(dtype),
                               rng.standard_normal((first, first)).astype(dtype))
        a, b = operands[first]
        print(f"sweep: {len(candidates)} configurations at n={first}", flush=True)
        timed = []
        for params in candidates:
            try:
                ms = time_variant(device, "xgemm", params, a, b, args.reps, first <= 2048)
            except (portgemm.BuildError, AssertionError) as exc:
                print(f"  failed {params}: {str(exc).splitlines()[0]}", flush=True)
                continue
            timed.append((ms, params))
            record("sweep", first, ms, params)
        timed.sort(key=lambda item: item[0])
        print("best:", flush=True)
        for ms, params in timed[:args.top]:
            for n, (a, b) in operands.items():
                record("best", n, time_variant(device, "xgemm", params, a, b, args.reps,
                                               False), params)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
