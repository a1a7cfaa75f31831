"""tallskinny's CPU form with B's rows in whole vectors (FLAT=1, auto's choice where it
applies) against each row of the tile a vector (FLAT=0, KU by ROW_CHAINS), beside numpy:
whole calls in one process, the sides in turns (reversed every other round), median of
each side's 3 timed calls a round over ROUNDS rounds. LAYOUT: A's order and B's.
--try-flat: where auto keeps the rows' form (a compiler FLAT was not measured on, a
layout it does not take), FLAT=1 at its own KU against auto's.
    python bench/flat_rows.py [--device cpu] [--rounds 6] [--layout CC] [--try-flat] 1x2x4194304 ..."""

import argparse

import numpy as np

import portgemm
from portgemm.auto.tallskinny import flat_steps, row_steps
from portgemm.families.tallskinny import FLAT_COLUMNS

from row_sums import in_turns  # bench/row_sums.py, beside this file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="+", help="MxNxK")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--layout", default="CC", choices=["CC", "FC"])
    parser.add_argument("--try-flat", action="store_true")
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    print(f"device: {device.description}; layout {args.layout}; wall ms a call", flush=True)
    rng = np.random.default_rng(0)
    for shape in args.shapes:
        m, n, k = (int(v) for v in shape.split("x"))
        a = rng.standard_normal((m, k)).astype(np.float32)
        if args.layout[0] == "F":
            a = np.asfortranarray(a)
        b = rng.standard_normal((k, n)).astype(np.float32)
        auto = portgemm.gemm(a, b, device=device)
        tile = (auto.params.get("tile_y"), auto.params.get("tile_x"))
        tried = (args.try_flat and auto.variant == "tallskinny" and auto.params["ROWVEC"]
                 and tile[1] == n and n in FLAT_COLUMNS)
        if auto.variant != "tallskinny" or not (auto.params.get("FLAT") or tried):
            print(f"{shape}: auto runs {auto.variant} {auto.params}", flush=True)
            continue
        flat = {**auto.params, "FLAT": 1, "KU": flat_steps(tile, n, "CC") or 1}
        rows = {**auto.params, "FLAT": 0, "KU": row_steps(tile)}
        calls = {"flat": lambda: portgemm.gemm(a, b, device=device, variant="tallskinny",
                                               params=flat),
                 "rows": lambda: portgemm.gemm(a, b, device=device, variant="tallskinny",
                                               params=rows),
                 "numpy": lambda: a @ b}
        ms = in_turns(calls, args.rounds)
        c = portgemm.gemm(a, b, device=device, variant="tallskinny", params=flat).c
        ref = a.astype(np.float64) @ b.astype(np.float64)
        error = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
        print(f"{shape:>16} tile {tile[0]}x{tile[1]} KU{flat['KU']}: flat "
              f"{ms['flat']:.3f}, rows (KU{rows['KU']}) {ms['rows']:.3f}, numpy "
              f"{ms['numpy']:.3f} | flat {ms['rows'] / ms['flat']:.2f}x the rows' speed, "
              f"{ms['numpy'] / ms['flat']:.2f}x numpy's; rel err {error:.1e}", flush=True)


if __name__ == "__main__":
    main()
