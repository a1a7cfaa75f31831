"""xgemm's register blocks on a CPU runtime that vectorises across work-items (Intel's).

The earlier searches took MWG and NWG in powers of two only, so a work-item's block of C
was 4 x 4 or 8 x 2 and the like; AVX-512 has 32 vector registers, room for 24
accumulators. ``search`` tries MWI = 4, 6, 8 rows by NWI = 2, 3, 4 columns a work-item
(at most 24), work-groups of 8-32 x 16-32, slabs of 64 and 128, every candidate verified;
``compare`` times a few configurations and numpy side by side, in interleaved rounds in
one process (wall time of ``portgemm.gemm`` with numpy in and out, median).

    python bench/intel_register_blocks.py search --size 2048 --budget 420
    python bench/intel_register_blocks.py compare --sizes 4096,2048,1024 --rounds 5
    python bench/intel_register_blocks.py compare --final --sizes 2048,4096 --rounds 7
    python bench/intel_register_blocks.py compare --slabs --sizes 4096,2048,1024 --rounds 7
Run with OPENBLAS_CORETYPE unset.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import portgemm
from portgemm.tune import tune

SHIPPED_BEFORE = dict(MWG=128, NWG=128, KWG=64, MDIMC=32, NDIMC=32, VW=1, VWM=1, VWN=1,
                      PAD=1, DOUBLE_BUFFER=0, KUNROLL=4, WARPN=32, KSPLIT=1, SWIZZLE=1)
COMPARED = {
    "128x128x64 (shipped before)": SHIPPED_BEFORE,
    "256x96x128": dict(SHIPPED_BEFORE, MWG=256, NWG=96, KWG=128),
    "256x96x128 PAD=0": dict(SHIPPED_BEFORE, MWG=256, NWG=96, KWG=128, PAD=0),
    "256x64x128 PAD=0": dict(SHIPPED_BEFORE, MWG=256, NWG=64, KWG=128, PAD=0),
}


def search(device, size, budget):
    space = {key: [value] for key, value in SHIPPED_BEFORE.items()}
    space.update(MWG=[32, 48, 64, 96, 128, 192, 256], NWG=[32, 48, 64, 96, 128],
                 MDIMC=[8, 16, 32], NDIMC=[16, 32], KWG=[64, 128], WARPN=[16, 32])
    rules = [lambda p: p["MWG"] % p["MDIMC"] == 0 and p["MWG"] // p["MDIMC"] in (4, 6, 8),
             lambda p: p["NWG"] % p["NDIMC"] == 0 and p["NWG"] // p["NDIMC"] in (2, 3, 4),
             lambda p: (p["MWG"] // p["MDIMC"]) * (p["NWG"] // p["NDIMC"]) <= 24,
             lambda p: p["WARPN"] == p["NDIMC"]]  # plain order: SIMD rows along n
    result = tune("xgemm", device, [size], space=space, restrictions=rules,
                  first=[SHIPPED_BEFORE], strategy="exhaustive", budget_s=budget, reps=3,
                  warmup=1, progress=False, cache_file=None)
    print(result.summary())
    print(result.table(25))


def compare(device, sizes, rounds):
    for n in sizes:
        rng = np.random.default_rng(0)
        a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
        times = {name: [] for name in [*COMPARED, "numpy"]}
        for params in COMPARED.values():  # builds and first touches, untimed
            portgemm.gemm(a, b, device=device, variant="xgemm", params=params)
        a @ b
        for _ in range(rounds):
            for name, params in COMPARED.items():
                times[name].append(portgemm.gemm(a, b, device=device, variant="xgemm",
                                                 params=params).wall_ms)
            start = time.perf_counter()
            a @ b
            times["numpy"].append((time.perf_counter() - start) * 1e3)
        numpy_ms = statistics.median(times["numpy"])
        for name, values in times.items():
            ms = statistics.median(values)
            print(f"n={n} {name:28s} wall {ms:8.1f} ms {2 * n ** 3 / ms / 1e6:7.1f} GFLOPS "
                  f"{numpy_ms / ms:7.1%} of numpy", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("search", "compare"))
    p.add_argument("--device", default="opencl:cpu:0")
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--budget", type=float, default=420)
    p.add_argument("--sizes", default="4096,2048,1024")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--final", action="store_true",
                   help="compare: the entry before against the cpu-avx512 preset only")
    p.add_argument("--slabs", action="store_true",
                   help="compare: the cpu-avx512 preset's K slab of 128 against 64")
    args = p.parse_args()
    if args.final:
        from portgemm.families.xgemm import CPU_AVX512_DEFAULTS

        COMPARED.clear()
        COMPARED.update({"128x128x64 PAD=1 (before)": SHIPPED_BEFORE,
                         "cpu-avx512 preset (now)": CPU_AVX512_DEFAULTS})
    if args.slabs:
        from portgemm.families.xgemm import CPU_AVX512_DEFAULTS

        COMPARED.clear()
        COMPARED.update({"cpu-avx512 preset, KWG=128": CPU_AVX512_DEFAULTS,
                         "the same, KWG=64": dict(CPU_AVX512_DEFAULTS, KWG=64)})
    device = portgemm.select_device(args.device)
    if args.what == "search":
        search(device, args.size, args.budget)
    else:
        compare(device, [int(s) for s in args.sizes.split(",")], args.rounds)


if __name__ == "__main__":
    main()
