"""Register caps for xgemm on NVIDIA (issue 11, item 4): does a second work-group per SM
beat the one that ~170 registers a work-item allow?

NVIDIA's OpenCL rejects -cl-nv-maxrregcount, but its program binaries are PTX text and it
builds a program from PTX. So: build from source, put a `.maxnreg N` directive on the
kernel's entry, build again from that PTX, and time both on the same device buffers
(events, median), beside cuBLAS. With triton's ptxas on the machine (torch ships it), the
registers and spills of each build are printed too.

    python3 bench/gpu/register_cap.py [--quick]            # with source .whl/setup.sh
    python bench/gpu/register_cap.py --device opencl:cpu:0 # a dry run: no PTX, no caps
    python3 bench/gpu/register_cap.py --ptx-dir $OUT/ptx \
        --extra '{"f32 VWN=4": ["float32", {"VWN": 4}, []]}'  # PTX for ptxas/cuobjdump elsewhere
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import tempfile

import numpy as np
import pyopencl as cl

from portgemm.backends.opencl import launch_plan
from portgemm.families import get_variant
from portgemm.families.xgemm import GPU_DEFAULTS
from portgemm.runtime.queue import Queue

from shapes import cublas_ms

F64_ENTRY = dict(GPU_DEFAULTS, KWG=8, VW=2, VWM=2, VWN=2, KUNROLL=8)
CONFIGS = [  # (label, dtype, params, caps tried besides none)
    ("f32 preset 128x128, 8x8/wi", np.float32, GPU_DEFAULTS, (168, 128)),
    ("f32 128x128 KWG=8", np.float32, dict(GPU_DEFAULTS, KWG=8, KUNROLL=8), (128,)),
    ("f32 128x64, 8x4/wi", np.float32, dict(GPU_DEFAULTS, NWG=64, VWN=2), (128, 96, 80)),
    ("f32 64x128 16x16, 4x8/wi", np.float32, dict(GPU_DEFAULTS, MWG=64, VWM=4), (128, 96, 80)),
    ("f64 entry 128x128, 8x8/wi", np.float64, F64_ENTRY, (200,)),
    ("f64 128x64, 8x4/wi", np.float64, dict(F64_ENTRY, NWG=64), (128, 96)),
]


def with_maxnreg(ptx: str, registers: int) -> str:
    """The PTX with `.maxnreg registers` on every kernel entry (between its parameter
    list and its body, where PTX puts performance directives)."""
    out, count = re.subn(r"(\.entry\s+\w+\s*\([^)]*\))", rf"\1\n.maxnreg {registers}", ptx)
    if count == 0:
        raise ValueError("no .entry in this PTX")
    return out


def ptxas() -> str | None:
    found = glob.glob("/usr/local/lib/python3*/dist-packages/triton/backends/nvidia/bin/ptxas")
    found += glob.glob("/usr/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas")
    try:
        import triton

        found += glob.glob(os.path.join(os.path.dirname(triton.__file__),
                                        "backends/nvidia/bin/ptxas"))
    except ImportError:
        pass
    return found[0] if found else None


def registers_report(ptx: str) -> str:
    tool = ptxas()
    if tool is None:
        return "(no ptxas)"
    target = re.search(r"\.target\s+(sm_\w+)", ptx)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "k.ptx")
        with open(path, "w") as f:  # triton's ptxas may be older than the driver's PTX
            f.write(re.sub(r"\.version\s+\d+\.\d+", ".version 8.0", ptx, count=1))
        run = subprocess.run([tool, "-v", f"-arch={target.group(1) if target else 'sm_90'}",
                              path, "-o", os.path.join(folder, "k.cubin")],
                             capture_output=True, text=True)
    text = run.stdout + run.stderr
    used = re.findall(r"Used (\d+) registers", text)
    spill = re.findall(r"(\d+) bytes spill stores", text)
    if not used:
        return "ptxas: " + text.strip().replace("\n", " | ")[:300]
    return f"{used[0]} registers, {spill[0] if spill else '?'} B spill stores"


def time_kernel(queue, kernel, step, args, reps):
    times = []
    for rep in range(reps + 3):
        event = queue.submit(kernel, step.ndrange, *args)
        if rep >= 3:
            times.append(event.kernel_ms)
    return statistics.median(times)


def run_config(queue, label, dtype, params, caps, sizes, reps, ptx_ok, ptx_dir=None):
    variant = get_variant("xgemm")
    itemsize = np.dtype(dtype).itemsize
    checked = variant.check(params, queue.device, itemsize)
    for n in sizes:
        plan, sources, options = launch_plan(variant, tuple(checked.items()), n, n, n,
                                             np.dtype(dtype), False, False)
        step = plan.steps[0]
        opts = list(options[0]) + list(queue.device_options)
        program = cl.Program(queue.context, sources[0]).build(options=opts, cache_dir=False)
        rng = np.random.default_rng(n)
        host_a = rng.uniform(-1, 1, (n, n)).astype(dtype)
        host_b = rng.uniform(-1, 1, (n, n)).astype(dtype)
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        a = cl.Buffer(queue.context, flags, hostbuf=host_a)
        b = cl.Buffer(queue.context, flags, hostbuf=host_b)
        c = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, n * n * itemsize)
        i32 = np.int32
        args = (i32(n), i32(n), i32(n), a, i32(n), b, i32(n), c, i32(n))
        ref = cublas_ms(host_a, host_b) if dtype == np.float32 or n <= 4096 else None
        baseline = None
        builds = [("none", program)]
        if ptx_ok:
            ptx = bytes(program.get_info(cl.program_info.BINARIES)[0]).decode()
            if ptx_dir:
                name = re.sub(r"[^\w.-]+", "_", label) + f"_n{n}.ptx"
                with open(os.path.join(ptx_dir, name), "w") as f:
                    f.write(ptx)
            builds[0] = ("none (" + registers_report(ptx) + ")", program)
            for cap in caps:
                capped = with_maxnreg(ptx, cap)
                try:
                    prog = cl.Program(queue.context, [queue.device.handle],
                                      [capped.encode()]).build(options=opts)
                except cl.Error as exc:
                    print(f"  {label} n={n} cap {cap}: build failed: {exc}", flush=True)
                    continue
                builds.append((f"{cap} ({registers_report(capped)})", prog))
        for cap_label, prog in builds:
            kernel = cl.Kernel(prog, step.kernel)
            cl.enqueue_fill_buffer(queue.cl_queue, c, dtype(np.nan), 0, n * n * itemsize)
            ms = time_kernel(queue, kernel, step, args, reps)
            out = np.empty((n, n), dtype)
            cl.enqueue_copy(queue.cl_queue, out, c)
            if baseline is None:
                baseline = out
                check = "reference"
                if n <= 1100:
                    exact = host_a.astype(np.float64) @ host_b
                    check = f"relerr {np.linalg.norm(out - exact) / np.linalg.norm(exact):.1e}"
            else:
                check = "bitwise = uncapped" if np.array_equal(out, baseline) else (
                    f"DIFFERS from uncapped (max {np.nanmax(np.abs(out - baseline)):.2e})")
            line = (f"{label} n={n} cap {cap_label}: {ms:.3f} ms = "
                    f"{2 * n ** 3 / ms / 1e9:.1f} TFLOPS; {check}")
            if ref:
                line += f"; {ref / ms:.1%} of cuBLAS ({ref:.3f} ms)"
            print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--sizes", default="4096,8192,4097")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--only", default="", help="labels starting with this")
    parser.add_argument("--ptx-dir", help="also write each uncapped build's PTX here")
    parser.add_argument("--extra", default="{}",
                        help='more configs, JSON {label: [dtype, {param: value, ...} over the '
                             'preset (float32) or the float64 entry, [caps]]}')
    args = parser.parse_args()
    configs = list(CONFIGS)
    for label, (dtype, changes, caps) in json.loads(args.extra).items():
        base = GPU_DEFAULTS if dtype == "float32" else F64_ENTRY
        configs.append((label, np.dtype(dtype).type, dict(base, **changes), tuple(caps)))
    if args.ptx_dir:
        os.makedirs(args.ptx_dir, exist_ok=True)
    queue = Queue.for_device(args.device)
    print(queue.device.description, "| ptxas:", ptxas(), flush=True)
    ptx_ok = queue.device.takes_ptx
    sizes = [int(s) for s in args.sizes.split(",")]
    for label, dtype, params, caps in configs:
        if not label.startswith(args.only):
            continue
        use = sizes if dtype == np.float32 else [s for s in sizes if s <= 4096]
        run_config(queue, label, dtype, dict(params), caps, use, args.reps, ptx_ok,
                   args.ptx_dir)


if __name__ == "__main__":
    main()
