"""A table of one wgmma_lead.py run: each candidate's kernel time (us, the median of its
rounds), cuBLAS's, auto's tile, and the fastest candidate against auto (against the
first candidate where none is auto).

    python3 bench/gpu/candidates_table.py bench/results/2026-11-27-h100-small-c/7-few/few.json
"""

from __future__ import annotations

import json
import sys

from portgemm.families import get_variant


def tile(candidate: dict) -> str:
    """A candidate's variant, with its work-group's block of C where the family has one
    (w128x64: wgmma's 128 x 64)."""
    variant = candidate["variant"]
    block = get_variant(variant).block(candidate["params"])
    return f"{variant[0]}{block[0]}x{block[1]}" if block else variant


def main():
    run = json.load(open(sys.argv[1]))
    names = list(run["candidates"])
    first = "auto" if "auto" in names else names[0]  # the candidate the others are set against
    print(f"{'shape':<16} {first[:8] + ' ran':<10} " + " ".join(f"{n[:8]:>8}" for n in names)
          + f"  cuBLAS  fastest / {first}")
    for row in run["rows"]:
        ms = {n: row["candidates"][n]["kernel_ms"] for n in names}
        best = min(ms, key=ms.get)
        shape = f"{row['m']}x{row['n']}x{row['k']}"
        cublas = "-" if row["cublas_ms"] is None else f"{row['cublas_ms'] * 1e3:.1f}"  # a CPU
        print(f"{shape:<16} {tile(row['candidates'][first]):<10} "
              + " ".join(f"{ms[n] * 1e3:8.1f}" for n in names)
              + f" {cublas:>7}  {best} {ms[first] / ms[best]:.2f}")


if __name__ == "__main__":
    main()
