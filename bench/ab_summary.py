"""A markdown table of bench/ab_turns.sh's runs: per shape, the variant and the median wall
time before and after, the range of each run's share of numpy, and the worst error after.

    python bench/ab_summary.py OUT
"""

import glob
import json
import statistics
import sys


def runs(folder: str, way: str) -> dict:
    found: dict = {}
    for path in sorted(glob.glob(f"{folder}/ab-{way}-*.json")):
        for record in json.load(open(path)):
            found.setdefault((record["m"], record["n"], record["k"]), []).append(record)
    return found


def cell(records: list) -> tuple[float, str]:
    share = [r["pct_of_ref"] for r in records]
    wall = statistics.median(r["wall_ms"] for r in records)
    return wall, f"{records[0]['variant']} {wall:.2f} ({min(share):.0f}-{max(share):.0f}%)"


def main(folder: str) -> None:
    before, after = runs(folder, "before"), runs(folder, "after")
    print("| shape | before: variant, wall ms (% of numpy) | after | speed-up of the medians "
          "| worst rel. error after |")
    print("|---|---|---|---|---|")
    for shape, records in after.items():
        if shape not in before:
            continue
        old_ms, old = cell(before[shape])
        new_ms, new = cell(records)
        error = max(r["relerr"] for r in records)
        print(f"| {'×'.join(map(str, shape))} | {old} | {new} | {old_ms / new_ms:.2f}× | "
              f"{error:.1e} |")


if __name__ == "__main__":
    main(sys.argv[1])
