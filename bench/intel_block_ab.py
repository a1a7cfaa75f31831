"""Paired A/B of xgemm configurations on one OpenCL device: the shipped AVX-512 block
against other configurations, run in turn with the order rotating every round, so that
a shared machine's drift falls on all of them alike. Prints each one's median kernel
time and, against the first, the median of the per-round time ratios and how many
rounds the first won.

    python bench/intel_block_ab.py --sizes 1024,2048 --rounds 20 --other 128x128pad
    python bench/intel_block_ab.py --sizes 4096 --rounds 5 --vary SWIZZLE=4 --vary PAD=1
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import portgemm
from portgemm.families.xgemm import CPU_AVX512_DEFAULTS

# the long 540 s search's best on this Xeon (bench/results/2026-11-22-cpu-xeon)
OTHERS = {"128x128pad": dict(CPU_AVX512_DEFAULTS, MWG=128, NWG=128, KWG=64, MDIMC=32,
                             NDIMC=32, PAD=1, KUNROLL=4, WARPN=32)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--sizes", default="2048")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--other", action="append", default=[], choices=sorted(OTHERS))
    parser.add_argument("--vary", action="append", default=[], metavar="NAME=VALUE",
                        help="the block with one parameter changed")
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    print(device.description)
    configs = {"block": dict(CPU_AVX512_DEFAULTS)}
    configs.update({name: OTHERS[name] for name in args.other})
    for spec in args.vary:
        name, value = spec.split("=")
        configs[spec] = dict(CPU_AVX512_DEFAULTS, **{name: int(value)})
    names = list(configs)
    for n in map(int, args.sizes.split(",")):
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        for params in configs.values():  # build, warm up
            portgemm.gemm(a, b, device=device, variant="xgemm", params=params)
        times = {name: [] for name in names}
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                result = portgemm.gemm(a, b, device=device, variant="xgemm",
                                       params=configs[name])
                times[name].append(result.kernel_ms)
        first = times[names[0]]
        for name in names:
            ms = statistics.median(times[name])
            line = f"n={n} {name:14s}: median {ms:.1f} ms = {2 * n ** 3 / ms / 1e6:.1f} GFLOPS"
            if name != names[0]:
                ratios = [t / f for t, f in zip(times[name], first)]
                wins = sum(x > 1 for x in ratios)
                line += (f"; time / {names[0]}'s: median {statistics.median(ratios):.3f}, "
                         f"{names[0]} faster in {wins} of {len(ratios)} rounds")
            print(line, flush=True)


if __name__ == "__main__":
    main()
