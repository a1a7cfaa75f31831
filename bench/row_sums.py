"""tallskinny's CPU form (ROWVEC, each row of the tile a vector: FLAT=0) at KU = 1, 2, 4
and 8, the rest of auto's parameters kept, beside numpy: whole calls in one process, the sides in turns (reversed every other
round), median of each side's 3 timed calls a round over ROUNDS rounds. Prints the rows' form's KU
(row_steps: ROW_CHAINS sums in flight, tile rows x vectors x KU) and the rule before it (KU = 2
for rows of two values, else 1), each over the fastest KU.
    python bench/row_sums.py [--device cpu] [--rounds 6] 1x2x426669 2x3x2097152 ..."""

import argparse
import time

import numpy as np

import portgemm
from portgemm.auto.tallskinny import row_steps
from portgemm.families.tallskinny import row_width

STEPS = (1, 2, 4, 8)


def in_turns(calls: dict, rounds: int) -> dict:
    """Each call's median wall ms: every round each call in turn (the order reversed
    every other round), 2 untimed calls then 3 timed."""
    times = {side: [] for side in calls}
    for round_ in range(rounds):
        for side in (list(calls) if round_ % 2 == 0 else list(calls)[::-1]):
            for _ in range(2):
                calls[side]()
            for _ in range(3):
                start = time.perf_counter()
                calls[side]()
                times[side].append((time.perf_counter() - start) * 1e3)
    return {side: float(np.median(values)) for side, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="+", help="MxNxK")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    device = portgemm.select_device(args.device)
    print(f"device: {device.description}; wall ms a call", flush=True)
    rng = np.random.default_rng(0)
    for shape in args.shapes:
        m, n, k = (int(v) for v in shape.split("x"))
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        auto = portgemm.gemm(a, b, device=device)
        if auto.variant != "tallskinny" or not auto.params.get("ROWVEC"):
            print(f"{shape}: auto runs {auto.variant}, not tallskinny's rows", flush=True)
            continue
        calls = {"numpy": lambda: a @ b}
        for steps in STEPS:
            params = {**auto.params, "FLAT": 0, "KU": steps}
            try:
                portgemm.gemm(a, b, device=device, variant="tallskinny", params=params)
            except portgemm.ParameterError:  # past the registers' bound
                continue
            calls[steps] = (lambda p: lambda: portgemm.gemm(
                a, b, device=device, variant="tallskinny", params=p))(params)
        ms = in_turns(calls, args.rounds)
        best = min(ms[s] for s in STEPS if s in ms)
        tile = (auto.params["tile_y"], auto.params["tile_x"])
        ours = row_steps(tile)
        before = 2 if row_width(tile[1]) == 2 else 1
        print(f"{shape:>16} tile {tile[0]}x{tile[1]}: "
              + "  ".join(f"KU{s} {ms[s]:.3f}" if s in ms else f"KU{s} -" for s in STEPS)
              + f"  numpy {ms['numpy']:.3f} | auto KU{ours} "
              f"{ms[ours] / best:.3f}x, before KU{before} "
              f"{ms[before] / best:.3f}x the fastest", flush=True)


if __name__ == "__main__":
    main()
