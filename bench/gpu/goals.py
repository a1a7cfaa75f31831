"""Ordinary shapes on the GPU beside cuBLAS in one run, for the record of issues 9 and 11:
what ``auto`` runs at 512, 1000, 2048, 4096, 4097, 8192 (float32) and 1024-8192 (float64), its
kernel time against cuBLAS's (TF32 off), on operands resident on the device; relative
error against float64.

    python3 bench/gpu/goals.py --json goals.json
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import portgemm

from shapes import cublas_ms, kernel_ms

SHAPES = [(512, np.float32), (1000, np.float32), (2048, np.float32), (4096, np.float32),
          (4097, np.float32), (8192, np.float32), (1024, np.float64), (2048, np.float64),
          (4096, np.float64), (4097, np.float64), (8192, np.float64)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="goals.json")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    rows = []
    for n, dtype in SHAPES:
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, (n, n)).astype(dtype)
        b = rng.uniform(-1, 1, (n, n)).astype(dtype)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        ms, result = kernel_ms(a_dev, b_dev)
        c = result.c.get()
        ref = a.astype(np.float64) @ b.astype(np.float64)
        row = {"n": n, "dtype": np.dtype(dtype).name, "variant": result.variant,
               "params": result.params, "source": result.source, "kernel_ms": ms,
               "tflops": 2 * n ** 3 / (ms * 1e9), "cublas_ms": cublas_ms(a, b),
               "relerr": float(np.linalg.norm(c - ref) / np.linalg.norm(ref))}
        row["of_cublas"] = row["cublas_ms"] / ms
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("n", "dtype", "variant", "kernel_ms", "tflops",
                                              "cublas_ms", "of_cublas", "relerr")}), flush=True)
        del a_dev, b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
