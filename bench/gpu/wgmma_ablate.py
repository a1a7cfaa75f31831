"""Where a slab's time goes in wgmma (kernels_cl/wgmma.cl; --variant mma: mma.cl, its own
ablations below): a tile (--params over the Hopper entries' 64 x 64 blocks of 2026-11-25,
or mma's defaults) timed as it ships and with one part of its K loop taken out of the
source at a time (the results are then wrong; only the times count), in one run.

    none      the kernel as it ships
    loads     the next slab is not read from global memory (the stale registers are stored;
              LEAD 1 only: with LEAD 2 the lines it removes are not built)
    store     the next slab is not stored into local memory
    staging   neither: the loop multiplies the first slab over and over
    onepass   one wgmma a step (a_hi b_hi) instead of three: TF32's work, not 3xTF32's
    split     A's fragments are not split into TF32 parts
    roundlo   the low TF32 parts rounded (cvt.rna) before the tensor cores read them, as
              before 2026-11-26 (they are now left for the tensor cores to truncate)
    cvthi     the high TF32 parts rounded by cvt.rna, as before 2026-11-26 (by two integer
              operations now; intround in the record's runs before that)
    trunchi   the high TF32 parts truncated (low 13 bits dropped), not rounded: a change
              to try, its error measured
    oldb      B staged value by value in the order of its core matrices, as before
              2026-11-26 (runs of 4 steps of k at one column, stored as vectors, now)
    scalara   A's runs read value by value, as before 2026-11-26 (vectors where aligned now)
    wait      the loop does not wait for its products (a race: only for the time)
    proxyfence  no fence between a slab's stores and wgmma's reads of it (a race)
    wgfence   no wgmma.fence before a slab's products (a race)
    barrier   no barrier at the end of a slab (a race)
    a+b       both (--ablations none,staging,staging+barrier ...)
mma's: none, staging, barrier (as above; the register path), fragments (A's fragments
not read from local memory), and with ASYNC_STAGES: copies (no slab requested in the loop),
asyncbarrier (no barrier a slab), asyncwait (no wait for the slab's copies: a race),
elementb (B's rows copied value by value, not in 16-byte pieces where aligned), packeda
(A's slabs copied in 16-byte pieces from consecutive addresses, as from an A packed tile by
tile: no transposition, no bounds), packedb (B's likewise), bulka (with --params
'{"B_BULK": 1}': A's slabs by bulk copies too, as if A were stored transposed, its
fragments value by value), ca16
(B's 16-byte pieces through the L1 cache, cp.async.ca, not .cg), acopies (A's values never
copied), bcopies (B's pieces never copied). valuereads: A's rows in order and
its fragments read value by value (float32's way; float64's before 2026-11-26).

    python3 bench/gpu/wgmma_ablate.py [--shapes 4096x4096x4096:1,1024x1024x16384:4]
        [--ablations ...] [--params '{"LEAD": 2, ...}'] [--ptx-dir DIR] [--json ablate.json]

--ptx-dir writes each ablation's PTX (as rebuilt for sm_90a) there, for bench/gpu/sass_loops.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import portgemm
from portgemm.families import get_variant

sys.path.insert(0, str(Path(__file__).parent))
from tallskinny_parts import parts  # noqa: E402
from wgmma_lead import split_operands  # noqa: E402

LARGE = {"WN": 64, "WGM": 2, "WGN": 2, "KS": 2, "PAD": 0}  # the Hopper entries' tile to 2026-11-25
LOADS = ("            load_a_runs(ra, (slab + 1) * BK, tid, m0, M, K, A, lda, aligned_a);\n"
         "            load_b_cores(rb, (slab + 1) * BK, tid, n0, N, K, B, ldb, aligned_b);\n")
STORE = ("        if (slab + 1 < slabs)  /* while the tensor cores multiply this slab */\n"
         "            store_slab(ra, rb, tid, As[buf ^ 1], Bs[buf ^ 1]);\n")
ABLATIONS = {
    "none": [],
    "loads": [(LOADS, "")],
    "store": [(STORE, "")],
    "staging": [(LOADS, ""), (STORE, "")],
    "onepass": [("        wgmma(part, a_lo[ks], descriptor(Bs[0] + core), ks > 0);\n"
                 "        wgmma(part, a_hi[ks], descriptor(Bs[1] + core), 1);\n"
                 "        wgmma(part, a_hi[ks], descriptor(Bs[0] + core), 1);\n",
                 "        wgmma(part, a_hi[ks], descriptor(Bs[0] + core), ks > 0);\n")],
    "split": [("            const float hi = tf32_hi(x);\n"
               "            a_hi[ks][i] = as_uint(hi);\n"
               "            a_lo[ks][i] = as_uint(x - hi);  /* the tensor cores drop its low bits */\n",
               "            a_hi[ks][i] = as_uint(x);\n"
               "            a_lo[ks][i] = as_uint(x);\n")],
    "roundlo": [("            a_lo[ks][i] = as_uint(x - hi);  /* the tensor cores drop its low bits */\n",
                 "            a_lo[ks][i] = as_uint(tf32(x - hi));\n"),
                ("            ((float *)&lo)[j] = x - h;  /* read as TF32, its low bits dropped */\n",
                 "            ((float *)&lo)[j] = tf32(x - h);\n")],
    "cvthi": [("    return as_float((as_uint(x) + 0x1000u) & 0xffffe000u);\n}\n\n#define ND",
               "    return tf32(x);\n}\n\n#define ND")],
    "trunchi": [("    return as_float((as_uint(x) + 0x1000u) & 0xffffe000u);\n}\n\n#define ND",
                 "    return as_float(as_uint(x) & 0xffffe000u);\n}\n\n#define ND")],
    "oldb": [('    for (int r = 0; r < LB / BV; ++r) {\n        const int2 at = b_run(r, tid);\n        const int k = k0 + at.x, col = min(n0 + at.y, N - 1);\n#if B_COLMAJOR\n        if (aligned && k + BV <= K) {\n            *(RUNVEC *)(rb + BV * r) = *(__global const RUNVEC *)(B + (long)col * ldb + k);\n            continue;\n        }\n#endif\n        for (int j = 0; j < BV; ++j)\n            rb[BV * r + j] = k + j < K ? B_AT(k + j, col) : 0.0f;\n    }\n',
              '    for (int e = 0; e < LB; ++e) {\n        const int idx = tid + e * WG;\n        const int kk = 4 * ((idx / 32) % (BK / 4)) + idx % 4;\n        const int nn = 8 * (idx / (8 * BK)) + (idx / 4) % 8;\n        const int col = min(n0 + nn, N - 1), k = k0 + kk;\n        rb[e] = k < K ? B_AT(k, col) : 0.0f;\n    }\n'),
             ('    for (int r = 0; r < LB / BV; ++r) {\n        const int2 at = b_run(r, tid);\n        const int core = b_index(at.x, at.y);  /* BV adjacent values, 4 BV bytes aligned */\n        RUNVEC hi, lo;\n        for (int j = 0; j < BV; ++j) {\n            const float x = rb[BV * r + j], h = tf32_hi(x);\n            ((float *)&hi)[j] = h;\n            ((float *)&lo)[j] = x - h;  /* read as TF32, its low bits dropped */\n        }\n        *(__local RUNVEC *)&Bs[0][core] = hi;\n        *(__local RUNVEC *)&Bs[1][core] = lo;\n    }\n',
              "    for (int e = 0; e < LB; ++e) {  /* load_b_cores's order: b_index(k, n) = idx */\n        const int idx = tid + e * WG;\n        const float hi = tf32_hi(rb[e]);\n        Bs[0][idx] = hi;\n        Bs[1][idx] = rb[e] - hi;\n    }\n")],
    "scalara": [("    const int aligned_a = lda % AV == 0 && (size_t)A % (4 * AV) == 0;\n",
                 "    const int aligned_a = 0;\n")],
    "wait": [("        products_wait(part);\n        for (int i = 0; i < ND; ++i)\n"
              "            acc[i] += part[i];\n",
              "        for (int i = 0; i < ND; ++i)\n            acc[i] += part[i];\n")],
    "proxyfence": [('    asm volatile(SM90A "fence.proxy.async.shared::cta;" ::: "memory");\n', "")],
    "wgfence": [('    asm volatile(SM90A "wgmma.fence.sync.aligned;" ::: "memory");\n', "")],
    "barrier": [("            acc[i] += part[i];\n        barrier(CLK_LOCAL_MEM_FENCE);\n",
                 "            acc[i] += part[i];\n")],
}

MMA_LOADS = ("            load_a(ra, (slab + 1) * BK, tid, m0, M, K, A, lda);\n"
             "            load_b(rb, (slab + 1) * BK, tid, n0, N, K, B, ldb);\n")
MMA_STORE = "            store_slab(ra, rb, tid, As[BUFFERS - 1 - buf], Bs[BUFFERS - 1 - buf]);\n"
MMA_FRAGMENTS = ("                        const REAL2 pair = *(__local const REAL2 *)\n"
                 "                            &As[p][k + 4 * h][wm + mi * 16 + 2 * g];\n")
ASYNC_COPY_H = (Path(__file__).resolve().parents[2] / "kernels_cl" / "async_copy.h").read_text()


def pipeline_line(statement: str) -> str:
    """The line of async_copy.h's CP_ASYNC_PIPELINE (inlined into the kernel's source) that
    holds ``statement``, with its continuation and newline: removing it removes the step."""
    lines = [line for line in ASYNC_COPY_H.splitlines(keepends=True)
             if line.strip().startswith(statement) and line.rstrip().endswith("\\")]
    assert len(lines) == 1, statement
    return lines[0]


MMA_REQUEST = pipeline_line("REQUEST(ahead_, ahead_ % ASYNC_STAGES);")
MMA_ASYNC_BARRIER = pipeline_line("barrier(CLK_LOCAL_MEM_FENCE);")
MMA_ASYNC_WAIT = pipeline_line("CP_ASYNC_WAIT_OLDER();")
# A's copies value by value, transposed into the k-major tile, and B's 16-byte pieces ...
MMA_A_COPIES = """    for (int e = 0; e < LA; ++e) {
        const int2 at = a_place(tid + e * WG);
        const int row = m0 + at.x, k = k0 + at.y;
        CP_ASYNC_ONE_OR_ZERO(&As[0][at.y][a_col(at.x)], &A_AT(min(row, M - 1), min(k, K - 1)),
                             k < K && (!edge || row < M));
    }
"""
MMA_B_PIECES = """        if (!edge || (b_aligned && col + 1 != N)) {  /* a whole piece, or zeros past N */
            const int from = edge && col >= N ? 0 : col;  /* zeros: any aligned place */
            const bool keep = k < K && (!edge || col < N);
            CP_ASYNC_16_OR_ZERO(dst, B + (long)min(k, K - 1) * ldb + from, keep);
        } else {
            for (int j = 0; j < 2; ++j)
                CP_ASYNC_ONE_OR_ZERO(dst + j, &B_AT(min(k, K - 1), min(col + j, N - 1)),
                                     k < K && col + j < N);
        }
"""
# ... and as they would be from operands packed tile by tile, each tile's slabs k-major
# ([M / BM][K][BM], [N / BN][K][BN]): 16-byte pieces at consecutive addresses, no bounds
# (read from the unpacked operands, so only a C of whole tiles stays in bounds)
PACKED_A = """    for (int e = 0; e < LA / 2; ++e) {
        const int idx = 2 * (tid + e * WG);
        CP_ASYNC_16_OR_ZERO(&As[0][idx / BM][idx % BM], A + (long)m0 * K + (long)k0 * BM + idx,
                            k0 < K);
    }
"""
PACKED_B = """        CP_ASYNC_16_OR_ZERO(dst, B + (long)n0 * K + (long)k0 * BN + 2 * (tid + e * WG), k0 < K);
"""
# with B_BULK 1 (B's slabs by bulk copies), A's slabs by them too, read as if A were
# stored transposed (K x M: rows of BM values), and its fragments value by value (A_PAIRS
# 0: a row copy cannot interleave A's rows). Timing only (A is not stored so); whole tiles.
BULK_EXPECT_B = "            BULK_EXPECT(bar, BK * BN * (int)sizeof(REAL));\n"
BULK_ROW_B = """                BULK_ROW(&Bs[0][r][0], B + (long)(k0 + r) * ldb + n0, BN * (int)sizeof(REAL),
                         bar);
"""
# kernels_cl/mma.cl's loop, its parts (float64: one mma.sync a tile and step of 8)
MMA_ABLATIONS = {
    "none": [],
    "staging": [(MMA_LOADS, ""), (MMA_STORE, "")],
    "barrier": [("        }\n        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n#endif\n",
                 "        }\n    }\n#endif\n")],
    "fragments": [(MMA_FRAGMENTS, "                        const REAL2 pair = (REAL2)(g, h);\n"),
                  ("a[s][p][mi][i] = As[p][k + 4 * (i / 2)][wm + mi * 16 + g + 8 * (i % 2)];",
                   "a[s][p][mi][i] = (REAL)(g + i);")],
    "valuereads": [("#define A_PAIRS USE_FP64", "#define A_PAIRS 0")],
    "copies": [(MMA_REQUEST, "")],
    "asyncbarrier": [(MMA_ASYNC_BARRIER, "")],
    "asyncwait": [(MMA_ASYNC_WAIT, "")],
    "ca16": [("cp.async.cg.shared.global [%0], [%1], 16, %2;",
              "cp.async.ca.shared.global [%0], [%1], 16, %2;")],
    "acopies": [("        CP_ASYNC_ONE_OR_ZERO(&As[0][at.y][a_col(at.x)], &A_AT(min(row, M - 1), min(k, K - 1)),\n"
                 "                             k < K && (!edge || row < M));\n", "")],
    "bcopies": [("            CP_ASYNC_16_OR_ZERO(dst, B + (long)min(k, K - 1) * ldb + from, keep);\n", "")],
    "elementb": [("    const int b_aligned = ldb % 2 == 0 && (size_t)B % 16 == 0;\n",
                  "    const int b_aligned = 0;\n")],
    "bulka": [(BULK_EXPECT_B, BULK_EXPECT_B.replace("BK * BN", "BK * (BN + BM)")),
              (BULK_ROW_B, BULK_ROW_B + "                BULK_ROW(&As[0][r][0], A + (long)(k0 + r)"
               " * M + m0, BM * (int)sizeof(REAL), bar);\n"),
              (MMA_A_COPIES, ""), ("#define A_PAIRS USE_FP64", "#define A_PAIRS 0")],
    "packeda": [(MMA_A_COPIES, PACKED_A)],
    "packedb": [(MMA_B_PIECES, PACKED_B)],
}
TABLES = {"wgmma": ABLATIONS, "mma": MMA_ABLATIONS}
MARK = {"wgmma": "products_start", "mma": "mma_steps"}  # in the GEMM's source, not the sum's


def patcher(names: str, variant: str = "wgmma"):
    replacements = [pair for name in names.split("+") for pair in TABLES[variant][name]]

    def patch(source: str) -> str:
        if MARK[variant] not in source:  # the sum of a split's slices
            return source
        for old, new in replacements:
            if old not in source:
                raise SystemExit(f"the kernel no longer has {old!r}: update the ablation")
            source = source.replace(old, new, 1)
        return source
    return patch


def write_ptx(queue, variant, params, m, n, k, dtype, patch, path):
    """The program's PTX, as NVIDIA's OpenCL returns it for the ablated source."""
    import pyopencl as cl

    from portgemm.backends.opencl import launch_plan

    resolved = variant.resolve(params)
    _, sources, options = launch_plan(variant, tuple(resolved.items()), m, n, k, dtype,
                                      False, False)
    program = queue.program(patch(sources[0]), options[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(program.get_info(cl.program_info.BINARIES)[0]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="gpu")
    p.add_argument("--shapes", default="4096x4096x4096:1,1024x1024x16384:4")
    p.add_argument("--variant", choices=sorted(TABLES), default="wgmma")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--ablations", help="default: every one of the variant's")
    p.add_argument("--params", type=json.loads, default={},
                   help="over the old Hopper tile for wgmma, the defaults for mma")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--ptx-dir")
    p.add_argument("--json", default="wgmma_ablate.json")
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    queue = portgemm.Queue.for_device(device)
    variant, dtype = get_variant(args.variant), np.dtype(args.dtype)
    rows = []
    print(device.description, flush=True)
    for split, m, n, k, a, b, ref in split_operands(args.shapes, 3):
        a, b = a.astype(dtype), b.astype(dtype)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        params = (dict(LARGE, **args.params, KSPLIT=split) if args.variant == "wgmma"
                  else dict(args.params))
        shape = f"{m}x{n}x{k}"
        line = f"{shape} split {split}:"
        for name in (args.ablations or ",".join(TABLES[args.variant])).split(","):
            got = parts(queue, variant, params, a_dev, b_dev, reps=args.reps,
                        patch=patcher(name, args.variant))
            err = float(np.linalg.norm(got.pop("c") - ref) / np.linalg.norm(ref))
            ms = got["steps_ms"][0]
            rows.append({"m": m, "n": n, "k": k, "params": params, "ablation": name,
                         "gemm_ms": ms, "steps_ms": got["steps_ms"], "relerr": err})
            if args.ptx_dir:
                write_ptx(queue, variant, params, m, n, k, dtype, patcher(name, args.variant),
                          Path(args.ptx_dir) / f"{shape}-{split}-{name}.ptx")
            line += f"  {name} {ms:.4f} ms ({2e-9 * m * n * k / ms:.1f} TFLOPS, {err:.0e})"
        print(line, flush=True)
        del a_dev, b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
