#!/usr/bin/env bash
# GPU machine (device tool), development run B1 of 2026-11-22, after run A: the tests on
# the GPU again (the staged transfers fixed), transfers beside torch again, tall-skinny
# shapes with the register-aware model, small-K and 16x16 sweeps, xgemm with 16x16 tiles
# split thousands of ways against tallskinny, the paper kernel's sweep on a bounded grid.
#   run with carry [".whl"]:  bash bench/gpu/dev_b1.sh      (about 8 minutes)
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; work=/tmp/dev_b1; mkdir -p "$out" "$work"
rm -f ~/.cache/portgemm/tuning.json
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         timeout "$limit" "$@" > "$work/$name.txt" 2>&1; echo "rc=$?" >> "$work/$name.txt";
         tail -n "${TAILN:-12}" "$work/$name.txt"; }
TAILN=8 step pytest 150 python3 -m pytest -q -rf -p no:cacheprovider tests/test_tallskinny.py \
  tests/test_resident.py tests/test_correctness.py tests/test_structure.py
TAILN=6 step transfers 70 python3 bench/gpu/transfers.py --json "$work/transfers.json"
TAILN=3 step tall 70 python3 bench/gpu/shapes.py --json "$work/tall.json" --only tall
TAILN=6 step tiny 80 python3 bench/gpu/shapes.py --json "$work/tiny.json" --only tiny
TAILN=3 step sweep_ts 60 python3 -m portgemm.tune --model tallskinny --device gpu \
  --sizes 8x8x2097152,9x9x2097152,16x16x33554432,8x8x33554432 --sweep --reps 3 --json "$work/sweep_ts.json"
TAILN=3 step sweep_phvm 50 python3 -m portgemm.tune --model phvm --device gpu \
  --sizes 5x5x30000000 --sweep --reps 2 --json "$work/sweep_phvm.json"
tar czf "$out/dev_b1.tgz" -C "$work" .
