#!/usr/bin/env bash
# GPU machine (device tool): split-K for the last wave (issue 11, item 5) and the faster
# sum of the slices. Tests of split-K on the GPU, the sum's parts, KSPLIT 1-4 on square
# shapes, and auto's choice for the ordinary and deep-K shapes beside cuBLAS.
#   run with carry [".whl"]:  bash bench/gpu/tail_check.sh     (about 4 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
TAILN=4 step pytest 200 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
  tests/test_tallskinny.py -k "split or determin or routes or wave"
cd bench/gpu
TAILN=20 step splitk_parts 120 python3 splitk_parts.py
TAILN=30 step wave_tail 150 python3 wave_tail.py
TAILN=10 step goals 150 python3 goals.py --json "$out/goals.json"
TAILN=6 step deep 120 python3 shapes.py --only deep --json "$out/deep.json"
TAILN=6 step m16_parts 120 python3 tallskinny_parts.py --auto --sizes 8,16 --k 2097152 --k 33554432
