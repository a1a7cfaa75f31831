"""mma's emulated path on the GPU machine's PoCL 5.0 CPU device: which tilings and
layouts come out right (a probe after one test case failed only there).

    python3 bench/gpu/mma_pocl5.py [--device opencl:cpu:0]
"""

import argparse
import itertools

import numpy as np

import portgemm

CONFIGS = {
    "tall": {"WM": 4, "WN": 1, "MT": 1, "NT": 4, "KS": 2},
    "tall-ks1": {"WM": 4, "WN": 1, "MT": 1, "NT": 4, "KS": 1},
    "tall-pad0": {"WM": 4, "WN": 1, "MT": 1, "NT": 4, "KS": 2, "PAD": 0},
    "tall-wm2": {"WM": 2, "WN": 1, "MT": 1, "NT": 4, "KS": 2},
    "tall-nt2": {"WM": 4, "WN": 1, "MT": 1, "NT": 2, "KS": 2},
    "wide": {"WM": 1, "WN": 4, "MT": 1, "NT": 4, "KS": 2},
    "defaults-ks2": {"KS": 2},
    "defaults": {},
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="opencl:cpu:0")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description, device.driver_version, flush=True)
    rng = np.random.default_rng(0)
    for (name, params), dtype in itertools.product(CONFIGS.items(), (np.float64, np.float32)):
        line = []
        for (m, n, k), order in itertools.product([(64, 128, 64), (17, 131, 257)],
                                                  ["CC", "FC", "CF", "FF"]):
            a = rng.standard_normal((m, k)).astype(dtype)
            b = rng.standard_normal((k, n)).astype(dtype)
            a = np.asfortranarray(a) if order[0] == "F" else a
            b = np.asfortranarray(b) if order[1] == "F" else b
            c = portgemm.gemm(a, b, device=device, variant="mma", params=params,
                              poison=np.nan).c
            ref = a.astype(np.float64) @ b.astype(np.float64)
            bad = np.isnan(c).mean()
            err = np.nanmax(np.abs(c - ref)) / np.abs(ref).max()
            ok = bad == 0 and err < 1e-4
            line.append(f"{m}x{n}x{k} {order}: {'ok' if ok else f'BAD nan={bad:.2f} err={err:.1e}'}")
        print(f"{name} {np.dtype(dtype).name}: " + "; ".join(line), flush=True)


if __name__ == "__main__":
    main()
