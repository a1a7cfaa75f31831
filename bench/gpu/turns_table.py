"""The table of store_pairs.sh's turns: auto's kernel time in each process (before,
after, before, after), the geometric mean of before / after, the control's (the
machine's drift between processes), and auto's share of cuBLAS in each.

    python3 bench/gpu/turns_table.py bench/results/2026-11-26-h100-store-pairs/1-ab f64
    python3 bench/gpu/turns_table.py bench/results/2026-11-27-h100-small-c/6-edges edges x64

The third argument names the candidate to compare (default auto).
"""

from __future__ import annotations

import json
import sys

ORDER = ("before_1", "after_1", "before_2", "after_2")


def gain(times):
    """before / after, the geometric mean over the two pairs of processes"""
    return (times[0] * times[2] / (times[1] * times[3])) ** 0.5


def main():
    folder, name = sys.argv[1], sys.argv[2]
    side = sys.argv[3] if len(sys.argv) > 3 else "auto"
    runs = [json.load(open(f"{folder}/{name}_{key}.json"))["rows"] for key in ORDER]
    print(f"| shape | before | after | {side} ms (b1, a1, b2, a2) | before / after | "
          "control | of cuBLAS (b1 / a1 / b2 / a2) |")
    print("|---|---|---|---|---|---|---|")
    for group in zip(*runs):
        auto = [row["candidates"][side] for row in group]
        control = [row["candidates"]["control"]["kernel_ms"] for row in group]
        times = [a["kernel_ms"] for a in auto]

        def what(a):
            return f"{a['variant']} {a['params'].get('KSPLIT', '-')}"
        print(f"| {group[0]['m']} x {group[0]['n']} x {group[0]['k']} | {what(auto[0])} | "
              f"{what(auto[1])} | {', '.join(f'{t:.4f}' for t in times)} | "
              f"**{gain(times):.2f}x** | {gain(control):.2f}x | "
              + " / ".join(f"{a['of_cublas']:.0%}" for a in auto) + " |")


if __name__ == "__main__":
    main()
