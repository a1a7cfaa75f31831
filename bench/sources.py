"""What `auto` runs by where its configuration comes from, timed side by side in one process.

For each size: the configuration `auto` picks with no database (the model), with the
shipped databases, and with each database named by --db, deduplicated, timed in
interleaved rounds with numpy's ``a @ b`` (so slow drifts of a shared machine hit all of
them alike; a pause after numpy, and the order rotating from round to round, so that
OpenBLAS's spinning threads slow none of them in particular): kernel time (OpenCL
events), median over the rounds.

    env -u OPENBLAS_CORETYPE python bench/sources.py --device pocl --sizes 1024,2048 \\
        --db quick=quick.json --db long=long.json
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.auto.database import shipped_database_paths
from portgemm.bench.runner import SETTLE_S


def configurations(device, n: int, databases: list[tuple[str, str]]) -> dict[tuple, list[str]]:
    """(variant, params) -> the sources that pick it."""
    sources = {"model": [], "shipped": [("shipped", p) for p in shipped_database_paths()]}
    sources.update({label: [("user", path)] for label, path in databases})
    found: dict[tuple, list[str]] = {}
    for label, source in sources.items():
        choice = choose(device, n, n, n, sources=source)
        if label != "model" and choice.source == "model":
            label += " (no entry: the model)"
        found.setdefault((choice.variant, tuple(sorted(choice.params.items()))), []).append(label)
    return found


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None)
    p.add_argument("--sizes", default="1024,2048")
    p.add_argument("--db", action="append", default=[], metavar="LABEL=PATH")
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    databases = [tuple(item.split("=", 1)) for item in args.db]
    print(device.description)
    for n in (int(s) for s in args.sizes.split(",")):
        rng = np.random.default_rng(0)
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        configs = configurations(device, n, databases)
        kernel_ms: dict[tuple, list[float]] = {key: [] for key in configs}
        numpy_ms: list[float] = []
        for key in configs:  # warm-up: build and first run
            portgemm.gemm(a, b, device=device, variant=key[0], params=dict(key[1]))
        keys = list(configs)
        for turn in range(args.rounds):
            start = time.perf_counter()
            a @ b
            numpy_ms.append((time.perf_counter() - start) * 1e3)
            time.sleep(SETTLE_S)  # OpenBLAS's threads spin on after a call, taking a core
            # the first after numpy rotates: no configuration always runs first
            for key in keys[turn % len(keys):] + keys[:turn % len(keys)]:
                result = portgemm.gemm(a, b, device=device, variant=key[0], params=dict(key[1]))
                kernel_ms[key].append(result.kernel_ms)
        best = min(statistics.median(v) for v in kernel_ms.values())
        numpy_median = statistics.median(numpy_ms)
        flops = 2.0 * n ** 3
        print(f"{n}^3: numpy {numpy_median:.2f} ms ({flops / numpy_median * 1e-6:.1f} GFLOPS)")
        for key, samples in sorted(kernel_ms.items(), key=lambda kv: statistics.median(kv[1])):
            ms = statistics.median(samples)
            params = " ".join(f"{k}={v}" for k, v in key[1])
            print(f"  {', '.join(configs[key]):32s} {key[0]} {params}: {ms:.2f} ms, "
                  f"{flops / ms * 1e-6:.1f} GFLOPS, {best / ms:.0%} of the fastest here, "
                  f"{numpy_median / ms:.0%} of numpy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
