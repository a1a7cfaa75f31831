"""First-call time of a new process: import, device discovery and the first matmul.

Each sample is a fresh Python process with its own cache folder (XDG_CACHE_HOME, which
portgemm, pyopencl and PoCL all follow): "cold" starts from an empty folder, "second
process" reuses the folder a previous process filled, which is what a user sees from the
second run of a script on.

    python bench/first_call.py --device intel,pocl --size 256 --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np, portgemm
t1 = time.perf_counter()
device = portgemm.select_device(sys.argv[1])
t2 = time.perf_counter()
n = int(sys.argv[2])
a = np.ones((n, n), np.float32); b = np.ones((n, n), np.float32)
c = portgemm.matmul(a, b, device=device)
t3 = time.perf_counter()
assert float(c[0, 0]) == n
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "select_ms": (t2 - t1) * 1e3,
                  "first_matmul_ms": (t3 - t2) * 1e3, "device": device.description}))
"""


def sample(spec: str, size: int, cache: str) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=cache, POCL_CACHE_DIR=os.path.join(cache, "pocl"))
    env.pop("PORTGEMM_TUNING_DB", None)
    out = subprocess.run([sys.executable, "-c", CHILD, spec, str(size)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="intel,pocl", help="comma-separated selectors")
    p.add_argument("--size", type=int, default=256)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    for spec in args.device.split(","):
        rows = {"cold": [], "second process": []}
        for _ in range(args.runs):
            cache = tempfile.mkdtemp(prefix="portgemm-first-call-")
            try:
                rows["cold"].append(sample(spec, args.size, cache))
                rows["second process"].append(sample(spec, args.size, cache))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        name = rows["cold"][0]["device"]
        for state, samples in rows.items():
            med = {key: statistics.median(s[key] for s in samples)
                   for key in ("import_ms", "select_ms", "first_matmul_ms")}
            print(f"{name} {args.size}^3 {state}: import {med['import_ms']:.0f} ms, "
                  f"select device {med['select_ms']:.0f} ms, first matmul "
                  f"{med['first_matmul_ms']:.0f} ms (median of {len(samples)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
