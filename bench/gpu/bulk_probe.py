"""mma's BULK path case by case, each in its own process under a time limit (a kernel
that waits for an mbarrier phase that never completes hangs the GPU's queue): the
relative error against float64 and the kernel time, from one work-group and a few slabs
to 4096^3; and the program's PTX for the first case.

    python3 bench/gpu/bulk_probe.py [--out DIR] [--cases 64x128x45:3,...] [--limit 30]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CASES = ("64x128x45:3,64x128x64:3,64x128x72:3,64x128x200:3,64x128x4096:3,64x128x64:2,"
         "64x128x64:4,128x256x4096:3,1024x1024x1024:3,4096x4096x4096:3")
DEVICE = os.environ.get("BULK_DEVICE", "gpu")
TILE = {"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "BULK": 1}


def one(m, n, k, stages, ptx):
    import numpy as np

    import portgemm

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    device = portgemm.select_device(DEVICE)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    params = dict(TILE, ASYNC_STAGES=stages)
    runs = [portgemm.gemm(a_dev, b_dev, variant="mma", params=params) for _ in range(5)]
    ref = a @ b
    c = runs[-1].c.get() if hasattr(runs[-1].c, "get") else runs[-1].c
    err = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
    if ptx:
        import pyopencl as cl

        from portgemm.backends.opencl import launch_plan
        from portgemm.families import get_variant

        variant = get_variant("mma")
        _, sources, options = launch_plan(variant, tuple(variant.resolve(params).items()),
                                          m, n, k, np.dtype(np.float64), False, False)
        queue = portgemm.Queue.for_device(device)
        program = queue.program(sources[0], options[0])
        Path(ptx).write_bytes(bytes(program.get_info(cl.program_info.BINARIES)[0]))
    print(json.dumps({"err": err, "ms": sorted(r.kernel_ms for r in runs)[2]}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=".")
    p.add_argument("--cases", default=CASES)
    p.add_argument("--limit", type=float, default=30)
    p.add_argument("--one", nargs=4, type=int)
    p.add_argument("--ptx")
    args = p.parse_args()
    if args.one:
        return one(*args.one, args.ptx)
    for i, case in enumerate(args.cases.split(",")):
        shape, stages = case.split(":")
        m, n, k = shape.split("x")
        cmd = [sys.executable, __file__, "--one", m, n, k, stages]
        if i == 0:
            cmd += ["--ptx", str(Path(args.out) / "bulk.ptx")]
        start = time.time()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.limit)
            tail = (done.stdout.strip().splitlines() or [""])[-1]
            if done.returncode:
                tail += " rc=%d %s" % (done.returncode, done.stderr.strip()[-400:])
        except subprocess.TimeoutExpired:
            tail = f"TIMED OUT after {args.limit} s"
        print(f"{case}: {tail} ({time.time() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
