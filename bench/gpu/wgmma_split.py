"""wgmma split along K (KSPLIT) on the shapes where C has few tiles or an uneven last
wave, beside what ``auto`` picks, xgemm's split and cuBLAS in the same run: kernel times
(OpenCL events, median) on operands already on the device, relative error against
float64.

    python3 bench/gpu/wgmma_split.py --json wgmma_split.json [--quick] [--set first|waves|medium]

The sets: ``first`` deep-K, uneven-wave and medium shapes, several tiles each; ``waves``
how many layers a C of few 128 x 128 tiles wants (one wave or more); ``medium`` the
medium size class; ``edges`` its smallest size and a C of few tiles split further; ``model`` what auto's
split model picks (with --quick).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.families.xgemm import GPU_DEFAULTS

from shapes import cublas_ms, kernel_ms

LARGE = {"WN": 64, "WGM": 2, "WGN": 2, "KS": 2, "PAD": 0}  # the H200's large entry
TILES = {
    "wgmma 128x128": LARGE,
    "wgmma 128x64": dict(LARGE, WGN=1),
    "wgmma 64x128": dict(LARGE, WGM=1),
    "wgmma 64x64": dict(LARGE, WGM=1, WGN=1),
    "wgmma 64x128 (WN 128)": dict(LARGE, WN=128, WGM=1, WGN=1),
}
XGEMM_64 = {"MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2,
            "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8}
# set: shape: the candidates (tile name, splits)
FIRST = {
    (1024, 1024, 16384): [("wgmma 128x128", (1, 2, 3, 4)), ("wgmma 128x64", (1, 2)),
                          ("wgmma 64x128", (1, 2)), ("xgemm gpu", (1, 2))],
    (16384, 64, 4096): [("wgmma 128x64", (1, 2, 3)), ("wgmma 64x64", (1, 2)),
                        ("xgemm 64x64", (1, 2))],
    (64, 64, 1 << 21): [("wgmma 64x64", (64, 128, 256, 512)), ("xgemm 64x64", (256, 512))],
    (4097, 4097, 4097): [("wgmma 128x128", (1, 2, 3, 4))],
    (3000, 3000, 3000): [("wgmma 128x128", (1, 2, 3, 4))],
    (5000, 5000, 5000): [("wgmma 128x128", (1, 2, 3))],
    (4096, 4096, 4096): [("wgmma 128x128", (1, 2))],
    (1000, 1000, 1000): [("wgmma 128x128", (1, 2, 4)), ("wgmma 64x128", (1, 2)),
                         ("xgemm gpu", (2,))],
    (2048, 2048, 2048): [("wgmma 128x128", (1, 2)), ("xgemm gpu", (1,))],
}
BOTH = [("wgmma 128x128", (1, 2, 4, 8)), ("xgemm gpu", (1, 2, 4, 8))]
WAVES = {(1024, 1024, 16384): BOTH, (1024, 1024, 8192): BOTH, (2048, 1024, 16384): BOTH,
         (768, 768, 16384): BOTH, (1024, 1024, 16384 * 4): BOTH}
MEDIUM = {(n, n, n): [("wgmma 128x128", (1, 2, 4)), ("wgmma 64x128", (1, 2)),
                      ("xgemm gpu", (1, 2, 4))] for n in (768, 1000, 1024, 1500, 2047)}
EDGES = {(512, 512, 512): [("wgmma 128x128", (2, 4, 8, 16)), ("wgmma 64x128", (4, 8)),
                           ("xgemm gpu", (4, 8, 16))],
         (768, 768, 16384): [("wgmma 128x128", (8, 16, 32))]}
MODEL = {shape: [] for shape in ((768, 768, 16384), (768, 768, 768), (1500, 1500, 1500),
                                  (4097, 4097, 4097), (5000, 5000, 5000),
                                  (1024, 1024, 16384))}
SETS = {"first": FIRST, "waves": WAVES, "medium": MEDIUM, "edges": EDGES, "model": MODEL}


def candidate(name: str) -> tuple[str, dict]:
    if name.startswith("wgmma"):
        return "wgmma", TILES[name]
    return "xgemm", dict(GPU_DEFAULTS) if name == "xgemm gpu" else XGEMM_64


def timed(a_dev, b_dev, ref, cublas, **kwargs) -> dict:
    ms, result = kernel_ms(a_dev, b_dev, **kwargs)
    err = float(np.linalg.norm(result.c.get() - ref) / np.linalg.norm(ref))
    return {"kernel_ms": ms, "of_cublas": cublas and cublas / ms, "relerr": err}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="wgmma_split.json")
    p.add_argument("--quick", action="store_true", help="auto and cuBLAS only")
    p.add_argument("--set", choices=sorted(SETS), action="append")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    rng = np.random.default_rng(5)
    rows = []
    shapes = {}
    for name in args.set or ["first"]:
        shapes.update(SETS[name])
    for (m, n, k), tries in shapes.items():
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        ref = a.astype(np.float64) @ b
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        cublas = cublas_ms(a, b)
        chosen = choose(device, m, n, k)

        row = {"m": m, "n": n, "k": k, "cublas_ms": cublas, "auto": chosen.variant,
               "auto_params": chosen.params, "reason": chosen.reason, **timed(a_dev, b_dev, ref, cublas), "tries": []}
        print(json.dumps({key: row[key] for key in ("m", "n", "k", "cublas_ms", "auto",
                                                    "auto_params", "kernel_ms", "of_cublas",
                                                    "relerr")}), flush=True)
        for name, splits in ([] if args.quick else tries):
            variant, params = candidate(name)
            for split in splits:
                try:
                    got = timed(a_dev, b_dev, ref, cublas, variant=variant, params=dict(params, KSPLIT=split))
                except portgemm.ParameterError as exc:
                    got = {"error": str(exc)[:100]}
                row["tries"].append({"tile": name, "KSPLIT": split, **got})
                print(f"  {name:24s} KSPLIT {split:4d} {json.dumps(got)}", flush=True)
        rows.append(row)
        del a_dev, b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
