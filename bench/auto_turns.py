"""auto on a CPU device for operands of any layout, numpy timed turn about with it
(portgemm.bench.runner.turn_about), or with --alone no numpy at all, through the public
API only, so that the same script times an older tree (PYTHONPATH=OLD_TREE) as well as
this one:

    for r in 1 2 3; do for tree in /tmp/old .; do
        PYTHONPATH=$tree python bench/auto_turns.py --layout CF --sizes 1x4096x4096,... \
            --json out/$(basename $tree)-$r.json; done; done
    python bench/auto_turns.py --compare out/old-*.json -- out/main-*.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

import numpy as np


def run(args):
    import portgemm
    from portgemm.bench.references import numpy_call_ms
    from portgemm.bench.runner import parse_sizes, turn_about

    device = portgemm.select_device(args.device)
    rng = np.random.default_rng(0)
    rows = []
    for m, n, k in parse_sizes(args.sizes):
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        a = np.asfortranarray(a) if args.layout[0] == "F" else a
        b = np.asfortranarray(b) if args.layout[1] == "F" else b
        ref = a.astype(np.float64) @ b
        first = portgemm.gemm(a, b, device=device)
        error = float(np.linalg.norm(first.c - ref) / np.linalg.norm(ref))
        if args.alone:  # no numpy in the process: nothing of OpenBLAS's threads about
            for _ in range(2):
                portgemm.gemm(a, b, device=device)
            runs, numpy_ms = [portgemm.gemm(a, b, device=device) for _ in range(args.reps)], [0.0]
        else:
            runs, numpy_ms = turn_about(lambda: portgemm.gemm(a, b, device=device),
                                        numpy_call_ms(a, b), args.reps)
        row = {"size": f"{m}x{n}x{k}", "layout": args.layout, "variant": first.variant,
               "params": first.params, "wall_ms": statistics.median(r.wall_ms for r in runs),
               "kernel_ms": statistics.median(r.kernel_ms for r in runs),
               "numpy_ms": statistics.median(numpy_ms), "relerr": error,
               "tree": os.path.dirname(os.path.dirname(portgemm.__file__))}
        rows.append(row)
        print(f"{row['size']:>15s} {args.layout} {row['variant']:>10s} wall {row['wall_ms']:8.3f} "
              f"ms  numpy {row['numpy_ms']:8.3f} ms  {100 * row['numpy_ms'] / row['wall_ms']:6.1f}%"
              f" of numpy  err {error:.1e}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def compare(before_files, after_files):
    """Median wall time of each shape over the files of each side, and the speed-up."""
    def load(files):
        seen = {}
        for name in files:
            for row in json.load(open(name)):
                seen.setdefault(row["size"], []).append(row)
        return seen

    before, after = load(before_files), load(after_files)
    print("| shape | before: wall ms (% of numpy) | after | speed-up | worst error after |")
    print("|---|---|---|---|---|")
    for size, old in before.items():
        new = after.get(size, [])
        if not new:
            continue
        def cell(rows):
            ms = statistics.median(r["wall_ms"] for r in rows)
            pct = [100 * r["numpy_ms"] / r["wall_ms"] for r in rows]
            return ms, f"{rows[0]['variant']} {ms:.2f} ({min(pct):.0f}-{max(pct):.0f}%)"
        old_ms, old_text = cell(old)
        new_ms, new_text = cell(new)
        print(f"| {size} {old[0]['layout']} | {old_text} | {new_text} | {old_ms / new_ms:.2f}× | "
              f"{max(r['relerr'] for r in new):.1e} |")


def main():
    if "--compare" in sys.argv:
        rest = sys.argv[sys.argv.index("--compare") + 1:]
        split = rest.index("--")
        compare(rest[:split], rest[split + 1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="intel")
    parser.add_argument("--sizes", required=True)
    parser.add_argument("--layout", default="CC", choices=["CC", "CF", "FC", "FF"])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--json", default=None)
    parser.add_argument("--alone", action="store_true",
                        help="time portgemm only, no numpy in the process (its share is 0)")
    if "OPENBLAS_CORETYPE" in os.environ:
        print("note: OPENBLAS_CORETYPE is set; numpy runs slower than it can")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
