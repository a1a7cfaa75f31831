"""Shallow K on the GPU (an outer product, K = 1-64): auto's choice against each of
xgemm's GPU presets and the wgmma entry unsplit, beside cuBLAS, one run. Such a C is
bound by writing it, so the kernel that stores C fastest wins.

    python3 bench/gpu/small_k.py [--shapes 4096x4096x1,2000x2000x64]
"""

from __future__ import annotations

import argparse
import json

import portgemm
from portgemm.families import get_variant

from shapes import copy_bandwidth, cublas_ms, kernel_ms, random_operands

SHAPES = "4096x4096x1,8192x8192x1,4096x4096x8,2000x2000x64,4096x4096x64,48x3000x2000"
WGMMA = {"WN": 64, "WGM": 2, "WGN": 2, "KS": 2, "PAD": 0}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--json", default="small_k.json")
    args = p.parse_args()
    device = portgemm.select_device("gpu")
    copy_gbs = copy_bandwidth(device)
    xgemm = get_variant("xgemm")
    ways = [("xgemm", name, xgemm.resolve(preset))
            for name, preset in xgemm.presets_for(device, 4)]
    ways += [("wgmma", "entry KSPLIT=1", dict(WGMMA, KSPLIT=1))]
    rows = []
    for m, n, k, a, b, _ in random_operands(args.shapes):
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        auto_ms, auto = kernel_ms(a_dev, b_dev)
        row = {"m": m, "n": n, "k": k, "auto": auto.variant, "auto_params": auto.params,
               "auto_ms": auto_ms, "cublas_ms": cublas_ms(a, b),
               "write_c_ms": 4 * m * n / (copy_gbs / 2 * 1e6), "ways": []}
        for variant, name, params in ways:
            try:
                ms, _ = kernel_ms(a_dev, b_dev, variant=variant, params=params)
            except portgemm.ParameterError as exc:
                row["ways"].append({"way": f"{variant} {name}", "error": str(exc)[:80]})
                continue
            row["ways"].append({"way": f"{variant} {name}", "params": params, "kernel_ms": ms})
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": device.name, "copy_gbs": copy_gbs, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
