"""`auto` on random shapes of every class, in random layouts and both types: is every
result right? The tests draw dimensions up to 160, where a GPU's `auto` reaches few of
its routes (tall-skinny at long K, deep-K split tiles, wgmma and mma, wide and tall
tiles); this draws shapes from each class at the sizes that reach them, checks C against
float64 with the tests' tolerance (C poisoned with NaN before the kernel), and calls
`auto` a second time on a tall-skinny shape to check that it gives bitwise the same C.

    python bench/fuzz_auto.py [--device gpu] [--cases 200] [--seed 0]
        [--max-flops 2e10] [--max-bytes 6e8] [--json fuzz.json]
    python bench/fuzz_auto.py --print-shapes --cases 40 --seed 5 --scale 4   # shapes for the bench

Prints a line a case and a summary; exits 1 if any case failed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

import portgemm
from portgemm.verify import is_correct, reference, relative_error, tolerance

LAYOUTS = {
    "C": np.ascontiguousarray,
    "F": np.asfortranarray,
    "T": lambda x: np.ascontiguousarray(x.T).T,           # a transposed view
    "S": lambda x: np.repeat(x, 2, axis=1)[:, ::2],       # a view with a column stride of 2
}
AWKWARD = (1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 255,
           256, 257, 511, 512, 513, 1023, 1024, 1025)


def log_uniform(rng, low: int, high: int) -> int:
    """An integer from low to high, uniform in its logarithm, now and then a tile's
    size or one either side of it (where edges go wrong)."""
    near = [v for v in AWKWARD if low <= v <= high]
    if near and rng.random() < 0.3:
        return int(rng.choice(near))
    return int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))


# Each class: (M range, N range, K range). The names follow portgemm.auto.shapes' classes
# only loosely: these are where the routes are, not a copy of the rules.
CLASSES = {
    "tiny": ((1, 40), (1, 40), (1, 40)),
    "tall-skinny": ((1, 24), (1, 24), (10_000, 8_000_000)),
    "skinny-wider": ((1, 64), (1, 64), (4096, 2_000_000)),
    "deep-k": ((24, 1100), (24, 1100), (4096, 70_000)),
    "wide": ((1, 16), (500, 20_000), (256, 8192)),
    "tall": ((500, 20_000), (1, 64), (256, 8192)),
    "shallow-k": ((300, 6000), (300, 6000), (1, 64)),
    "square": ((60, 3000), (60, 3000), (60, 3000)),
}


def draw(rng, cls: str, max_flops: float, max_bytes: float, itemsize: int, scale: float = 1):
    """(m, n, k) of the class (each range's top times ``scale``), shrunk along its largest
    side until the float64 reference and the operands fit the budgets."""
    m, n, k = (log_uniform(rng, low, max(low, int(high * scale))) for low, high in CLASSES[cls])
    while 2 * m * n * k > max_flops or (m * k + k * n + 2 * m * n) * max(itemsize, 8) > max_bytes:
        big = max(m, n, k)
        if big == k:
            k = max(1, k // 2)
        elif big == m:
            m = max(1, m // 2)
        else:
            n = max(1, n // 2)
    return m, n, k


def one_case(device, rng, cls, dtype, max_flops, max_bytes, scale=1):
    m, n, k = draw(rng, cls, max_flops, max_bytes, np.dtype(dtype).itemsize, scale)
    la, lb = rng.choice(list(LAYOUTS), 2)
    a = LAYOUTS[la](rng.uniform(-1, 1, (m, k)).astype(dtype))
    b = LAYOUTS[lb](rng.uniform(-1, 1, (k, n)).astype(dtype))
    ref = reference(a, b)
    row = {"class": cls, "shape": f"{m}x{n}x{k}", "dtype": dtype, "layout": la + lb}
    try:
        result = portgemm.gemm(a, b, device=device, variant="auto", poison=np.nan)
    except Exception as exc:  # a failure to report, whatever it is
        row.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:400])
        return row, None
    c = result.c
    err = relative_error(c, ref)
    tol = float(tolerance(a.dtype, k))
    ok = c.shape == (m, n) and c.dtype == a.dtype and is_correct(c, ref, k)  # NaN fails
    row.update(ok=bool(ok), variant=result.variant, params=result.params, source=result.source,
               relerr=err, tolerance=tol, kernel_ms=result.kernel_ms)
    return row, (a, b, c)


def save(path, device, seed, rows):
    with open(path, "w") as f:
        json.dump({"device": device.description, "seed": seed, "rows": rows}, f, indent=1,
                  default=str)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default=None, help="a selector (default: portgemm's)")
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-flops", type=float, default=2e10,
                   help="largest 2 M N K a case may take (the float64 reference's cost)")
    p.add_argument("--max-bytes", type=float, default=6e8,
                   help="largest bytes of A, B and C (at 8 bytes a value) a case may take")
    p.add_argument("--json", default="fuzz.json")
    p.add_argument("--scale", type=float, default=1,
                   help="multiply the top of each class's ranges (larger shapes, for timing)")
    p.add_argument("--print-shapes", action="store_true",
                   help="print the cases' shapes (MxNxK,...) for portgemm.bench and stop")
    args = p.parse_args()
    if args.print_shapes:
        rng = np.random.default_rng(args.seed)
        classes = list(CLASSES)
        print(",".join("x".join(map(str, draw(rng, classes[i % len(classes)], args.max_flops,
                                                 args.max_bytes, 4, args.scale)))
                       for i in range(args.cases)))
        return
    device = portgemm.select_device(args.device)
    print(device.description, flush=True)
    rng = np.random.default_rng(args.seed)
    dtypes = ["float32"] + (["float64"] if device.has_fp64 else [])
    rows, started = [], time.perf_counter()
    for i in range(args.cases):
        cls = list(CLASSES)[i % len(CLASSES)]
        dtype = dtypes[(i // len(CLASSES)) % len(dtypes)]
        row, kept = one_case(device, rng, cls, dtype, args.max_flops, args.max_bytes, args.scale)
        if kept is not None and row["variant"] == "tallskinny":
            a, b, c = kept
            again = portgemm.gemm(a, b, device=device, variant="auto").c
            row["repeatable"] = bool(np.array_equal(c, again))
            row["ok"] = row["ok"] and row["repeatable"]
        rows.append(row)
        save(args.json, device, args.seed, rows)  # as it goes: a run cut short keeps its cases
        detail = (f"{row['variant']:<10} err {row['relerr']:.1e} (tol {row['tolerance']:.1e})"
                  if "variant" in row else row["error"])
        print(f"{i:4d} {'ok  ' if row['ok'] else 'FAIL'} {cls:<13} {dtype:<8} {row['layout']} "
              f"{row['shape']:<22} {detail}"
              + ("" if row.get("repeatable", True) else " NOT REPEATABLE"), flush=True)
    failed = [r for r in rows if not r["ok"]]
    variants = sorted({r.get("variant", "-") for r in rows})
    print(f"{len(rows) - len(failed)} of {len(rows)} ok in {time.perf_counter() - started:.0f} s;"
          f" variants: {', '.join(variants)}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
