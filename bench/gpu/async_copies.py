"""xgemm with asynchronous copies (ASYNC_STAGES, cp.async through inline PTX) on the GPU of
the device tool (issue 11: float32 >= 90% of cuBLAS at 4096 and 8192, 4097 >= 85%,
float64 >= 25 TFLOPS at 4096):

1. correctness: ASYNC_STAGES 2 and 3 in several tilings, float32 and float64, every
   layout of A and B, awkward shapes, against float64 (the tests run the same pipeline
   with plain copies on CPUs; here the PTX runs);
2. float32: an exhaustive search around the GPU preset with and without asynchronous
   copies (ASYNC_STAGES, DOUBLE_BUFFER, PAD, KWG, VWN, MWG) at 4096 and 8192, the best
   of each kind beside cuBLAS, also at 4097;
3. float64: the same around the shipped float64 entry at 4096.
Every candidate is verified by the tuner; kernel times from events, median of 5.

    python3 bench/gpu/async_copies.py --json async.json      # with source .whl/setup.sh
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

import portgemm
from portgemm.families.xgemm import GPU_DEFAULTS
from portgemm.tune import tune

from shapes import cublas_ms, kernel_ms

F64_ENTRY = {"MWG": 128, "NWG": 128, "KWG": 8, "MDIMC": 16, "NDIMC": 16, "VW": 2, "VWM": 2,
             "VWN": 2, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 8, "WARPN": 16, "KSPLIT": 1,
             "SWIZZLE": 1}
CHECKED = [
    {**GPU_DEFAULTS, "DOUBLE_BUFFER": 0, "ASYNC_STAGES": 2},
    {**GPU_DEFAULTS, "DOUBLE_BUFFER": 0, "ASYNC_STAGES": 3, "PAD": 0},
    {**GPU_DEFAULTS, "DOUBLE_BUFFER": 0, "ASYNC_STAGES": 2, "VWN": 4, "PAD": 1},
    {"MWG": 32, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 1, "VWM": 4, "VWN": 2,
     "PAD": 1, "KUNROLL": 8, "WARPN": 8, "ASYNC_STAGES": 3},
]
SHAPES = [(1, 1, 1), (13, 11, 7), (67, 131, 97), (128, 64, 300), (5, 200, 33), (200, 3, 129),
          (257, 255, 1000)]


def check(device) -> int:
    rng = np.random.default_rng(0)
    bad = runs = refused = 0
    for params, (m, n, k), order_a, order_b, dtype in itertools.product(
            CHECKED, SHAPES, "CF", "CF", (np.float32, np.float64)):
        if dtype == np.float64:
            params = {**params, "VW": min(params["VW"], 2)}
        a = np.asarray(rng.uniform(-1, 1, (m, k)), dtype, order=order_a)
        b = np.asarray(rng.uniform(-1, 1, (k, n)), dtype, order=order_b)
        try:
            c = portgemm.gemm(a, b, device=device, variant="xgemm", params=params).c
        except portgemm.ParameterError:  # too much local memory in float64: not run
            refused += 1
            continue
        except Exception as exc:  # noqa: BLE001 -- report and go on
            print("FAILED", params, (m, n, k), order_a, order_b, dtype.__name__, exc)
            bad += 1
            continue
        want = a.astype(np.float64) @ b
        err = np.max(np.abs(c - want)) / max(1.0, np.max(np.abs(want)))
        runs += 1
        if not err < (2e-5 if dtype == np.float32 else 1e-12):
            bad += 1
            print("WRONG", params, (m, n, k), order_a, order_b, dtype.__name__, err)
    print(f"correctness: {runs} runs, {bad} wrong or failed; {refused} refused by the "
          f"device's limits")
    return bad


def search(device, base, space, sizes, dtype, budget):
    full = {key: [value] for key, value in base.items()}
    full.update(space)
    start = time.perf_counter()
    result = tune("xgemm", device, sizes, space=full, strategy="exhaustive", budget_s=budget,
                  reps=5, warmup=2, progress=False, cache_file=None, dtype=dtype)
    print(f"{len(result.ok)} verified candidates in {time.perf_counter() - start:.0f} s")
    print(result.table(16))
    return result


def best_of(result, async_on: bool):
    ok = [c for c in result.ok if bool(c.params.get("ASYNC_STAGES")) == async_on]
    return min(ok, key=lambda c: sum(r.kernel_ms for r in c.records)) if ok else None


def time_at(device, params, n, dtype):
    """Median kernel ms of xgemm with ``params`` on resident n x n operands."""
    rng = np.random.default_rng(1)
    a, b = (portgemm.to_device(rng.uniform(-1, 1, (n, n)).astype(dtype), device)
            for _ in range(2))
    return kernel_ms(a, b, device=device, variant="xgemm", params=params)[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="async.json")
    p.add_argument("--budget", type=float, default=170)
    p.add_argument("--f32-space", type=json.loads, default=None,
                   help="JSON: the float32 search's space instead of the default one")
    p.add_argument("--only-f32", action="store_true", help="no check, no float64")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    record = {"device": device.description,
              "wrong": None if args.only_f32 else check(device)}

    rng = np.random.default_rng(0)
    refs = {}
    for n, dtype in ((4096, np.float32), (8192, np.float32), (4097, np.float32),
                     (4096, np.float64)):
        a = rng.uniform(-1, 1, (n, n)).astype(dtype)
        refs[(n, np.dtype(dtype).name)] = cublas_ms(a, a)
    record["cublas_ms"] = {f"{n} {d}": ms for (n, d), ms in refs.items()}

    f32 = search(device, GPU_DEFAULTS,
                 args.f32_space or {"ASYNC_STAGES": [0, 2, 3], "DOUBLE_BUFFER": [0, 1],
                                    "PAD": [0, 1], "KWG": [16, 32], "VWN": [2, 4],
                                    "MWG": [128, 256]},
                 [4096, 8192], np.float32, args.budget)
    searches = [("float32", f32, np.float32, (4096, 8192, 4097))]
    if not args.only_f32:
        f64 = search(device, F64_ENTRY,
                     {"ASYNC_STAGES": [0, 2, 3], "DOUBLE_BUFFER": [0, 1], "PAD": [0, 1],
                      "KWG": [8, 16], "VWN": [1, 2]},
                     [4096], np.float64, args.budget / 2)
        searches.append(("float64", f64, np.float64, (4096,)))
    lines = []
    for label, result, dtype, sizes in searches:
        for async_on in (False, True):
            best = best_of(result, async_on)
            if best is None:
                continue
            for n in sizes:
                ms = time_at(device, best.params, n, dtype)
                ref = refs[(n, np.dtype(dtype).name)]
                tflops = 2 * n ** 3 / (ms * 1e9)
                line = (f"{label} n={n} {'async' if async_on else 'registers'}: {ms:.3f} ms "
                        f"= {tflops:.1f} TFLOPS" + (f", {ref / ms:.1%} of cuBLAS "
                                                    f"({ref:.3f} ms)" if ref else "")
                        + f"; {best.params}")
                print(line)
                lines.append({"dtype": label, "n": n, "async": async_on, "ms": ms,
                              "tflops": tflops, "cublas_ms": ref, "params": best.params})
    record["best"] = lines
    record["f32_candidates"] = [{"params": c.params, "ms": [r.kernel_ms for r in c.records]}
                                for c in f32.ok]
    if not args.only_f32:
        record["f64_candidates"] = [{"params": c.params,
                                     "ms": [r.kernel_ms for r in c.records]} for c in f64.ok]
    with open(args.json, "w") as f:
        json.dump(record, f, indent=1, default=str)


if __name__ == "__main__":
    main()
