#!/usr/bin/env bash
# GPU machine (device tool): tallskinny for a C wider than one work-item's registers
# (issue 9's M = N = 16): tiles of 8 x 8 with two steps of K loaded at once (KU=2), the
# bandwidth model's GS x BS against sweeps, and auto on every tall-skinny goal shape
# beside cuBLAS and the copy bandwidth. (The first runs of this script also tried several
# tiles a work-group, TG, and KU 1-4 on every shape: bench/results/2026-11-22-h200-m16.)
#   run with carry [".whl"]:  bash bench/gpu/m16_check.sh      (about 8 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
TAILN=4 step pytest 200 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
  tests/test_tallskinny.py -k "(any_shape or unaligned or determin or counters or accurate) and gpu"
TAILN=4 step shapes 200 python3 bench/gpu/shapes.py --only tall --json "$out/shapes.json"
TAILN=3 step sweep_m16 300 python3 -m portgemm.tune --model tallskinny --device gpu \
  --sizes 16x16x33554432,16x16x2097152,16x16x50000000,12x12x33554432,13x13x33554432,8x8x2097152,9x9x2097152 \
  --sweep --reps 3 \
  --json "$out/sweep_m16.json"
cd bench/gpu
TAILN=8 step auto_parts 200 python3 tallskinny_parts.py --auto --sizes 11,12,13,16 \
  --k 2097152 --k 33554432 --k 50000000
