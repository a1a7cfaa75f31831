"""A table of one wgmma_lead.py run: each candidate's kernel time (us, the median of its
rounds), cuBLAS's, auto's tile, and the fastest candidate against auto.

    python3 bench/gpu/candidates_table.py bench/results/2026-11-27-h100-small-c/7-few/few.json
"""

from __future__ import annotations

import json
import sys


def tile(candidate: dict) -> str:
    """A candidate's variant, with its tile where the variant has one."""
    variant, p = candidate["variant"], candidate["params"]
    if variant == "wgmma":
        return f"w{64 * p['WGM']}x{p['WN'] * p['WGN']}"
    if variant == "mma":
        return f"m{16 * p['WM'] * p['MT']}x{8 * p['WN'] * p['NT']}"
    if variant == "xgemm":
        return f"x{p['MWG']}x{p['NWG']}"
    return variant


def main():
    run = json.load(open(sys.argv[1]))
    names = list(run["candidates"])
    print(f"{'shape':<16} {'auto ran':<10} " + " ".join(f"{n[:8]:>8}" for n in names)
          + "  cuBLAS  fastest / auto")
    for row in run["rows"]:
        ms = {n: row["candidates"][n]["kernel_ms"] for n in names}
        best = min(ms, key=ms.get)
        shape = f"{row['m']}x{row['n']}x{row['k']}"
        print(f"{shape:<16} {tile(row['candidates']['auto']):<10} "
              + " ".join(f"{ms[n] * 1e3:8.1f}" for n in names)
              + f" {row['cublas_ms'] * 1e3:7.1f}  {best} {ms['auto'] / ms[best]:.2f}")


if __name__ == "__main__":
    main()
