#!/usr/bin/env bash
# GPU machine (device tool): issue 9's tall-skinny record after the butterfly sum and the
# last group's sum of the slices (REDUCE=1, FUSE=1) -- the tall-skinny tests on the GPU,
# `auto` on every goal shape beside cuBLAS and the copy bandwidth, the model against
# GS x BS sweeps, and each way of summing at K = 2^21, all in one call.
#   run with carry [".whl"]:  bash bench/gpu/tallskinny_check.sh   (about 7 minutes)
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; work=/tmp/tallskinny_check; mkdir -p "$out" "$work"
rm -f ~/.cache/portgemm/tuning.json  # the shipped database only
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         timeout "$limit" "$@" > "$work/$name.txt" 2>&1; echo "rc=$?" >> "$work/$name.txt";
         tail -n "${TAILN:-12}" "$work/$name.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$work/gpu.txt"
TAILN=4 step pytest 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_tallskinny.py
TAILN=4 step shapes 150 python3 bench/gpu/shapes.py --json "$work/shapes.json"
TAILN=3 step sweep_ts 150 python3 -m portgemm.tune --model tallskinny --device gpu \
  --sizes 8x8x33554432,3x3x50000000,5x5x33554432,8x8x2097152,9x9x2097152 --sweep --reps 3 \
  --json "$work/sweep_ts.json"
TAILN=2 step parts 90 python3 bench/gpu/tallskinny_parts.py --k 2097152 --modes 00,10,11 \
  --json "$work/parts.json"
cp "$work"/*.txt "$out"/ 2>/dev/null
tar czf "$out/tallskinny_check.tgz" -C "$work" .
