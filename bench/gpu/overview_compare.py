"""Two runs of `python -m portgemm.bench --json` side by side, shape by shape: auto's
choice and its share of the reference in each (only shares taken in the same run
compare; kernel times of two machine starts may not).

    python3 bench/gpu/overview_compare.py BEFORE.json AFTER.json
"""

from __future__ import annotations

import json
import sys


def by_shape(path):
    return {(row["m"], row["n"], row["k"]): row for row in json.load(open(path))}


def described(row):
    split = row["params"].get("KSPLIT")
    return row["variant"].replace("auto:", "") + (f" KSPLIT {split}" if split else "")


def main():
    before, after = by_shape(sys.argv[1]), by_shape(sys.argv[2])
    print("| shape | before | of reference | after | of reference |")
    print("|---|---|---|---|---|")
    for shape, row in after.items():
        old = before.get(shape)
        was = (f"{described(old)} | {old['pct_of_ref']:.1f}%" if old else "- | -")
        print(f"| {' x '.join(map(str, shape))} | {was} | {described(row)} | "
              f"{row['pct_of_ref']:.1f}% |")


if __name__ == "__main__":
    main()
