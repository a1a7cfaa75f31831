"""Registers a work-item builds to (ptxas, from the PTX NVIDIA's OpenCL compiler emits)
beside what auto's split-K model assumes (Variant.registers) and the groups an SM holds
by each, for parameter sets of the families that split K.

    python3 bench/gpu/kernel_registers.py --dtype float64 \
        --candidate 'tall={"variant": "mma", "WM": 4, "WN": 1, "MT": 2, "NT": 2, "ASYNC_STAGES": 3}'
        [--ptx-dir DIR]     # each candidate's PTX, for sass_loops.py
"""

from __future__ import annotations

import argparse
import json
import os
from math import prod

import numpy as np
import pyopencl as cl

from portgemm.auto.traits import traits
from portgemm.backends.opencl import launch_plan
from portgemm.families import get_variant
from portgemm.runtime.ptx import for_sm90a, needs_sm90a
from portgemm.runtime.queue import Queue

from register_cap import registers_report


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    p.add_argument("--candidate", action="append", default=[], metavar="NAME=JSON")
    p.add_argument("--ptx-dir", help="also write each candidate's PTX here (NAME.ptx), for "
                                     "sass_loops.py")
    args = p.parse_args()
    queue = Queue.for_device(args.device)
    device, dtype = queue.device, np.dtype(args.dtype)
    known = traits(device)
    print(device.description, args.dtype, flush=True)
    for item in args.candidate:
        name, text = item.split("=", 1)
        params = json.loads(text)
        impl = get_variant(params.pop("variant"))
        checked = impl.check(params, device, dtype.itemsize)
        plan, sources, options = launch_plan(impl, tuple(checked.items()), 4096, 64, 4096,
                                             dtype, False, False)
        program = cl.Program(queue.context, sources[0]).build(
            options=list(options[0]) + list(queue.device_options), cache_dir=False)
        if device.takes_ptx:
            ptx = bytes(program.get_info(cl.program_info.BINARIES)[0]).decode()
            ptx = for_sm90a(ptx) if needs_sm90a(ptx) else ptx
            report = registers_report(ptx)
            if args.ptx_dir:
                os.makedirs(args.ptx_dir, exist_ok=True)
                with open(os.path.join(args.ptx_dir, f"{name}.ptx"), "w") as f:
                    f.write(ptx)
        else:
            report = "(no PTX on this device)"
        threads = prod(impl.work_group(checked))
        model = impl.registers(checked, dtype.itemsize)
        local = impl.local_mem_bytes(checked, dtype.itemsize)
        built = int(report.split()[0]) if report.split()[0].isdigit() else None
        groups = {label: known.groups_per_unit(threads, regs, local)
                  for label, regs in (("model", model), ("built", built)) if regs}
        print(f"{name}: {impl.name} {checked}\n  {report}; model {model} registers; "
              f"{threads} work-items, {local} B local; groups an SM: {groups}", flush=True)


if __name__ == "__main__":
    main()
