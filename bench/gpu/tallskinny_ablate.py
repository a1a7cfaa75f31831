"""Where the fixed part of a short tallskinny kernel goes: auto's tallskinny (FUSE=1) timed
as it is and with one phase taken out of its source at a time (the results are then
wrong; only the times count), beside an empty kernel's event, in one run.

    none     the kernel as it ships
    loop     no steps of K: the launch and the whole tail (group sum, ticket, last sum)
    slices   the last group does not add the slices (the ticket still counts)
    ticket   no fence, no ticket, no last group
    groupsum each work-item's values summed in registers instead of across the group
    fence    a relaxed atomic for the ticket, no fences (a race: only for the time)
    everyfence  the form to 2026-11-26 (NVIDIA): membar.gl by every work-item before the
             group's barrier, a relaxed atomic, membar.gl by the last group after it
    single   the last group's slices left after its last whole batch loaded one at a
             time (the form before 2026-11-28; now a last batch, masked past the end)
    batch16, batch24  a batch of 16 or 24 for big tiles (masked)
    smallbatch4  a masked batch of 4 for small tiles too (one slice at a time as shipped)
    a+b      both (--ablations none,loop,loop+ticket ...)
Beside them, an empty kernel launched over the same grid as the shape's.

    python3 bench/gpu/tallskinny_ablate.py [--device gpu] [--sizes 3,5,7,8,9,16]
        [--k 2097152 --k 33554432] [--ablations none,loop,slices,ticket,groupsum]
        [--json ablate.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.auto import choose
from portgemm.families import get_variant

sys.path.insert(0, str(Path(__file__).parent))
from tallskinny_parts import baseline, empty_kernel_ms, parts  # noqa: E402

GROUP_SUM = "    group_sum(acc, tile_sum, runs + block * (BS / LANES) * QN, swap, lid, sid);\n"
TICKET = "        last = take_ticket(ticket) == groups - 1;\n"
GROUP_BARRIER = "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n    __global int *ticket"
LAST_SUM = "    barrier(CLK_LOCAL_MEM_FENCE);\n    sum_tile_slices"
BATCH_RULE = "#define SLICE_BATCH (16 * QN >= BS ? 8 : 1)"
BATCH_LOOP_MASKED = "for (; g < groups; g += SLICE_BATCH * PARTS) {"
BATCH_LOOP_SINGLE = "for (; g + (SLICE_BATCH - 1) * PARTS < groups; g += SLICE_BATCH * PARTS) {"
SLICE_MASKED = "v[u] = g + u * PARTS < groups ? slice_value(w + (g + u * PARTS) * slice) : 0;"
SLICE_UNMASKED = "v[u] = slice_value(w + (g + u * PARTS) * slice);"
MEMBAR = 'asm volatile("membar.gl;" ::: "memory");'
ABLATIONS = {
    "none": [],
    "loop": [("    const int k = k_begin + sid;\n", "    const int k = k_end;\n")],
    "slices": [("    sum_tile_slices(last, ", "    sum_tile_slices(false, ")],
    "ticket": [(TICKET, "        last = 0;\n"),
               ("    sum_tile_slices(last, ", "    sum_tile_slices(false, ")],
    "groupsum": [(GROUP_SUM, "    { REAL t = 0;\n      for (int q = 0; q < QN; ++q) t += acc[q];\n"
                             "      if (sid < QN) tile_sum[sid] = t;\n"
                             "      barrier(CLK_LOCAL_MEM_FENCE); }\n")],
    "fence": [(TICKET, "        last = atomic_inc(ticket) == groups - 1;\n")],
    "everyfence": [(GROUP_BARRIER, f"    {MEMBAR}\n{GROUP_BARRIER}"),
                   (TICKET, "        last = atomic_inc(ticket) == groups - 1;\n"),
                   (LAST_SUM, f"    barrier(CLK_LOCAL_MEM_FENCE);\n    if (last)\n        {MEMBAR}\n"
                              "    sum_tile_slices")],
    "single": [(BATCH_LOOP_MASKED, BATCH_LOOP_SINGLE), (SLICE_MASKED, SLICE_UNMASKED)],
    "batch16": [(BATCH_RULE, BATCH_RULE.replace("? 8 :", "? 16 :"))],
    "batch24": [(BATCH_RULE, BATCH_RULE.replace("? 8 :", "? 24 :"))],
    "smallbatch4": [(BATCH_RULE, BATCH_RULE.replace(": 1)", ": 4)"))],
}


def patcher(names: str):
    replacements = [pair for name in names.split("+") for pair in ABLATIONS[name]]

    def patch(source: str) -> str:
        if "void partial_tiles" not in source:
            return source
        for old, new in replacements:
            if old not in source:
                raise SystemExit(f"the kernel no longer has {old!r}: update the ablation")
            source = source.replace(old, new)
        return source
    return patch


def write_ptx(queue, params, mn, k, name, folder):
    """The PTX NVIDIA's compiler gives the form ``name`` of the kernel (the program
    binary), into folder/MxN_K_NAME.ptx once."""
    import pyopencl as cl

    from portgemm.backends.opencl import launch_plan

    path = Path(folder) / f"{mn}x{mn}_{k}_{name}.ptx"
    if path.exists() or not queue.device.takes_ptx:
        return
    variant = get_variant("tallskinny")
    _, sources, options = launch_plan(variant, tuple(variant.resolve(params).items()), mn, mn,
                                      k, np.dtype(np.float32), False, False)
    program = cl.Program(queue.context, patcher(name)(sources[0])).build(
        options=list(options[0]) + list(queue.device_options), cache_dir=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(program.get_info(cl.program_info.BINARIES)[0]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--sizes", default="3,5,7,8,9,16")
    p.add_argument("--k", type=int, action="append")
    p.add_argument("--ablations", default=",".join(ABLATIONS))
    p.add_argument("--json", default="ablate.json")
    p.add_argument("--ptx-dir", help="also write each form's PTX here (MxN_K_FORM.ptx), "
                                     "for sass_loops.py")
    args = p.parse_args()
    device, queue, copy_gbs, empty = baseline(args.device)
    rng = np.random.default_rng(4)
    rows = []
    for k in args.k or [1 << 21]:
        for mn in map(int, args.sizes.split(",")):
            chosen = choose(device, mn, mn, k)
            if chosen.variant != "tallskinny":
                print(f"{mn}x{mn}x{k}: auto picks {chosen.variant}; skipped", flush=True)
                continue
            params = dict(chosen.params)
            if device.type == "cpu":  # a dry run: the GPU's form of the kernel
                params.update(ROWVEC=0, BS=64, GS=8, REDUCE=1, FUSE=1)
            a = rng.uniform(-1, 1, (mn, k)).astype(np.float32)
            b = rng.uniform(-1, 1, (k, mn)).astype(np.float32)
            ref = a.astype(np.float64) @ b
            a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
            ideal_us = 2 * mn * k * 4 / copy_gbs * 1e-3
            tiles = -(-mn // params["tile_y"]) * -(-mn // params["tile_x"])
            grid = params["GS"] * tiles // params["TG"], params["BS"] * params["TG"]
            empty_us = empty_kernel_ms(queue, groups=grid[0], size=grid[1]) * 1e3
            rows.append({"m": mn, "k": k, "params": params, "ablation": "empty grid",
                         "groups": grid[0], "kernel_us": empty_us})
            line = f"{mn:2d}x{mn:<2d} K={k:<9d} GS={params['GS']} BS={params['BS']} " \
                   f"ideal {ideal_us:6.1f} us | empty grid {empty_us:5.1f}"
            for name in args.ablations.split(","):
                got = parts(queue, get_variant("tallskinny"), params, a_dev, b_dev, reps=20,
                            patch=patcher(name))
                err = float(np.linalg.norm(got.pop("c") - ref) / np.linalg.norm(ref))
                us = sum(got["steps_ms"]) * 1e3
                rows.append({"m": mn, "k": k, "params": params, "ablation": name,
                             "kernel_us": us, "ideal_us": ideal_us, "relerr": err})
                line += f" {name} {us:6.1f}"
                if args.ptx_dir:
                    write_ptx(queue, params, mn, k, name, args.ptx_dir)
            print(line + " us", flush=True)
    with open(args.json, "w") as f:
        json.dump({"device": str(device), "copy_gbs": copy_gbs, "empty_ms": empty,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
