"""Tall-skinny and deep-K shapes on the GPU beside cuBLAS and the device's copy bandwidth,
all in one run: what ``auto`` picks and how fast it runs, and (``--splits``) xgemm's
KSPLIT swept for the deep-K shapes.

Operands of the tall-skinny shapes are periodic along K (a random block of P columns
repeated), so the float64 reference is exact and cheap: C = q * R_A R_B^T + the first r
columns' part, for K = q P + r. Kernel times come from OpenCL events on operands already
on the device; cuBLAS's from CUDA events (TF32 off) on the same values.

    python3 bench/gpu/shapes.py --json shapes.json [--splits]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.bench.references import time_cublas

PERIOD = 1 << 20
TALL = [(mn, k) for k in (1 << 21, 1 << 25, 50_000_000) for mn in (3, 5, 7, 8, 9, 16)]
DEEP = [(1024, 1024, 16384), (16384, 64, 4096), (64, 64, 1 << 21)]


def cublas_ms(a, b, reps=10):
    """Median cuBLAS time in ms as the bench takes it (torch, CUDA events, TF32 off), or
    None without torch and CUDA (a dry run on a CPU); frees torch's cache after it, so the
    next shape's operands fit."""
    timing = time_cublas(a, b, reps, warmup=3)
    if timing is not None:
        import torch

        torch.cuda.empty_cache()
    return timing and timing.ms


def copy_bandwidth(device, nbytes=2 * 2**30):
    """GB/s of a device-to-device copy, bytes read plus bytes written (median of 10)."""
    import pyopencl as cl

    queue = portgemm.Queue.for_device(device)
    src = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=nbytes)
    dst = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=nbytes)
    cl.enqueue_fill_buffer(queue.cl_queue, src, np.float32(1), 0, nbytes).wait()
    times = []
    for _ in range(12):
        event = cl.enqueue_copy(queue.cl_queue, dst, src)
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-6)
    return 2 * nbytes / (statistics.median(times[2:]) * 1e6)


def random_operands(spec: str, seed: int = 0):
    """(m, n, k, A, B, A @ B in float64) for each MxNxK of a comma-separated spec: A and B
    float32 from U(-1, 1), one generator for all of them."""
    rng = np.random.default_rng(seed)
    for shape in spec.split(","):
        m, n, k = map(int, shape.split("x"))
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        yield m, n, k, a, b, a.astype(np.float64) @ b


def kernel_ms(a_dev, b_dev, reps=10, **kwargs):
    runs = [portgemm.gemm(a_dev, b_dev, **kwargs) for _ in range(reps + 2)]
    return statistics.median(r.kernel_ms for r in runs[2:]), runs[-1]


def tall_skinny(device, rows, copy_gbs):
    rng = np.random.default_rng(0)
    block_a = rng.uniform(-1, 1, (16, PERIOD)).astype(np.float32)
    block_b = rng.uniform(-1, 1, (PERIOD, 16)).astype(np.float32)
    for mn, k in TALL:
        start = time.perf_counter()
        q, r = divmod(k, PERIOD)
        ra, rb = block_a[:mn], block_b[:, :mn]
        a = np.tile(ra, (1, q + 1))[:, :k].copy()
        b = np.tile(rb, (q + 1, 1))[:k].copy()
        ref = q * (ra.astype(np.float64) @ rb) + ra[:, :r].astype(np.float64) @ rb[:r]
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        ms, result = kernel_ms(a_dev, b_dev)
        c = result.c.get()
        relerr = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        repeat = portgemm.matmul(a_dev, b_dev).get()
        cublas = cublas_ms(a, b)
        gbs = 2 * mn * k * 4 / (ms * 1e6)
        row = {"m": mn, "n": mn, "k": k, "variant": result.variant, "params": result.params,
               "kernel_ms": ms, "effective_gbs": gbs, "of_copy_bw": gbs / copy_gbs,
               "cublas_ms": cublas, "speedup_vs_cublas": cublas and cublas / ms,
               "relerr": relerr,
               "bitwise_repeatable": bool(np.array_equal(c, repeat)),
               "setup_s": time.perf_counter() - start}
        rows.append(row)
        print(json.dumps(row), flush=True)
        del a_dev, b_dev


TINY_TILES = {
    "16x16/8x8/k64": dict(MWG=16, NWG=16, KWG=64, MDIMC=8, NDIMC=8, VW=4, VWM=2, VWN=2, PAD=1,
                          DOUBLE_BUFFER=1, KUNROLL=16, WARPN=8),
    "16x16/4x4/k64": dict(MWG=16, NWG=16, KWG=64, MDIMC=4, NDIMC=4, VW=4, VWM=4, VWN=4, PAD=1,
                          DOUBLE_BUFFER=1, KUNROLL=16, WARPN=4),
    "16x16/8x8/k128": dict(MWG=16, NWG=16, KWG=128, MDIMC=8, NDIMC=8, VW=4, VWM=2, VWN=2,
                           PAD=1, DOUBLE_BUFFER=1, KUNROLL=16, WARPN=8),
}


def tiny_tiles(device, rows, copy_gbs, shapes=((16, 1 << 25), (9, 1 << 25), (16, 1 << 21),
                                              (9, 1 << 21), (8, 1 << 21))):
    """xgemm with tiles of 16 x 16 split along K thousands of ways, against tallskinny:
    is a GEMM kernel with local-memory tiles the better tall-skinny kernel past 8 x 8?"""
    rng = np.random.default_rng(2)
    for mn, k in shapes:
        a = rng.uniform(-1, 1, (mn, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, mn)).astype(np.float32)
        ref = a.astype(np.float64) @ b
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        auto_ms, auto = kernel_ms(a_dev, b_dev)
        row = {"m": mn, "k": k, "auto": auto.variant, "auto_params": auto.params,
               "auto_ms": auto_ms, "auto_of_copy": 2 * mn * k * 4 / (auto_ms * 1e6) / copy_gbs,
               "tiles": []}
        for name, tile in TINY_TILES.items():
            for split in (128, 256, 512, 1024, 2048, 4096, 8192):
                params = dict(tile, KSPLIT=split)
                try:
                    ms, result = kernel_ms(a_dev, b_dev, variant="xgemm", params=params, reps=5)
                except portgemm.ParameterError as exc:
                    row["tiles"].append({"tile": name, "KSPLIT": split, "error": str(exc)[:80]})
                    continue
                err = float(np.linalg.norm(result.c.get() - ref) / np.linalg.norm(ref))
                row["tiles"].append({"tile": name, "KSPLIT": split, "kernel_ms": ms,
                                     "of_copy": 2 * mn * k * 4 / (ms * 1e6) / copy_gbs,
                                     "relerr": err})
        best = min((t for t in row["tiles"] if "kernel_ms" in t), key=lambda t: t["kernel_ms"])
        row["best_tile"] = best
        rows.append(row)
        print(json.dumps({key: row[key] for key in ("m", "k", "auto_ms", "auto_of_copy",
                                                    "best_tile")}), flush=True)


def deep_k(device, rows, splits: bool):
    from portgemm.families.xgemm import GPU_DEFAULTS

    medium = {"MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2,
              "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8}
    rng = np.random.default_rng(1)
    for m, n, k in DEEP:
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        ref = a.astype(np.float64) @ b
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        chosen = choose(device, m, n, k)
        ms, result = kernel_ms(a_dev, b_dev)
        relerr = float(np.linalg.norm(result.c.get() - ref) / np.linalg.norm(ref))
        cublas = cublas_ms(a, b)
        row = {"m": m, "n": n, "k": k, "auto": chosen.variant, "params": result.params,
               "reason": chosen.reason, "kernel_ms": ms, "cublas_ms": cublas,
               "of_cublas": cublas and cublas / ms, "relerr": relerr, "splits": []}
        if splits:
            for name, tile in (("gpu-preset", GPU_DEFAULTS), ("medium-64x64", medium)):
                for split in (1, 2, 4, 8, 16, 32, 64, 128, 256):
                    params = dict(tile, KSPLIT=split)
                    try:
                        t, _ = kernel_ms(a_dev, b_dev, variant="xgemm", params=params, reps=5)
                    except portgemm.ParameterError as exc:
                        t = str(exc)[:80]
                    row["splits"].append({"tile": name, "KSPLIT": split, "kernel_ms": t})
        rows.append(row)
        print(json.dumps(row), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="shapes.json")
    p.add_argument("--splits", action="store_true")
    p.add_argument("--only", choices=("tall", "deep", "tiny"), default=None)
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    copy_gbs = copy_bandwidth(device)
    print(f"device copy bandwidth {copy_gbs:.0f} GB/s (read + write)", flush=True)
    tall, deep, tiny = [], [], []
    if args.only in (None, "tall"):
        tall_skinny(device, tall, copy_gbs)
    if args.only in (None, "deep"):
        deep_k(device, deep, args.splits)
    if args.only == "tiny":
        tiny_tiles(device, tiny, copy_gbs)
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "copy_gbs": copy_gbs, "tall_skinny": tall,
                   "deep_k": deep, "tiny": tiny}, f, indent=1)


if __name__ == "__main__":
    main()
