"""phvm's single launch (every work-item loops over the elements of C) over a wide GS x BS
grid, B row-major and column-major, beside what the device's cache holds: the data for a
model of the grid that lets the M x N elements reread A and B from the cache.

For each buffer size the cached read is the bandwidth of a buffer read again and again
(probe.py's stream_read): above the cache it falls to the memory's. The driver's own
report (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) is printed beside it.

    python3 bench/gpu/phvm_single.py [--device gpu] [--sizes 5x5x30000000,...]
        [--gs 64,...] [--bs 128,...] [--json single.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.runtime import probe
from portgemm.runtime.ndrange import NDRange

sys.path.insert(0, str(Path(__file__).parent))
from shapes import kernel_ms  # noqa: E402
from tall_layouts import operands  # noqa: E402


def cached_reads(queue, sizes_mb=(1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512)):
    """{MB: GB/s} of a buffer of that size read 8 times over, after a warm-up read."""
    device = queue.device
    stream = queue.kernel(probe._KERNELS, "stream_read")
    items = device.compute_units * 2048
    sums = queue.empty(items * 4)
    found = {}
    for mb in sizes_mb:
        nbytes = mb << 20
        data = queue.empty(nbytes)
        queue.fill(data, np.float32(1), nbytes).wait()
        times = [queue.submit(stream, NDRange(items, 256), data, np.int32(nbytes // 16),
                              sums).kernel_ms for _ in range(9)]
        found[mb] = nbytes / (float(np.median(times[1:])) * 1e6)
        print(f"cached read {mb:4d} MB: {found[mb]:7.0f} GB/s", flush=True)
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--sizes", default="5x5x30000000,7x7x30000000,9x9x30000000,3x3x30000000")
    p.add_argument("--gs", default=",".join(str(2 ** e) for e in range(6, 16)))
    p.add_argument("--bs", default="128,256,512,1024")
    p.add_argument("--json", default="single.json")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    queue = portgemm.Queue.for_device(device)
    print(f"{device}: CL_DEVICE_GLOBAL_MEM_CACHE_SIZE {device.global_mem_cache_size} bytes",
          flush=True)
    record = {"device": str(device), "driver_cache_bytes": device.global_mem_cache_size,
              "cached_read_gbs": cached_reads(queue), "points": []}
    rng = np.random.default_rng(5)
    grid = [(int(g), int(b)) for b in args.bs.split(",") for g in args.gs.split(",")]
    for spec in args.sizes.split(","):
        m, n, k = map(int, spec.split("x"))
        assert m == n, "operands() makes square C"
        a_dev, b_by_layout, ref = operands(device, m, k, rng)
        for layout, b_dev in b_by_layout.items():
            for gs, bs in grid:
                try:
                    ms, result = kernel_ms(a_dev, b_dev, reps=5, variant="phvm",
                                           params={"GS": gs, "BS": bs})
                except portgemm.ParameterError as exc:
                    print(f"{spec} {layout} GS={gs} BS={bs}: {exc}", flush=True)
                    continue
                c = result.c.get()
                err = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
                point = {"m": m, "n": n, "k": k, "layout": layout, "gs": gs, "bs": bs,
                         "kernel_ms": ms, "relerr": err}
                record["points"].append(point)
                print(f"{spec} {layout} GS={gs:5d} BS={bs:4d} {ms:7.3f} ms err {err:.1e}",
                      flush=True)
        del a_dev, b_by_layout
    with open(args.json, "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
