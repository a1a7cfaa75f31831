#!/usr/bin/env bash
# Issue 9's H200 figures after wgmma's rework on the H100 (2026-11-26), whose H200
# entries were shipped untimed: which GPU this is, wgmma's and the shipped database's GPU
# tests, auto beside cuBLAS on the deep-K and square shapes (the bench's own command),
# goals.py's squares, and shapes.py's tall-skinny and deep-K shapes beside the copy
# bandwidth. Everything on gpu:0. About 5 minutes.
#   run with carry [".whl"]:  bash bench/gpu/h200_confirm.sh
set -uo pipefail
source bench/gpu/steps.sh
work=/tmp/confirm; mkdir -p "$work"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
TAILN=4 step pytest 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_shipped_database.py tests/test_wgmma.py -k "gpu or nvidia or h200 or capability"
TAILN=12 step bench 150 python3 -m portgemm.bench --device gpu:0 --variant auto --no-progress \
  --sizes 1024x1024x16384,16384x64x4096,2048,4096,8192 --reps 10 --warmup 3 --json "$work/bench.json"
cd bench/gpu
TAILN=14 step goals 120 python3 goals.py --json "$work/goals.json"
TAILN=30 step shapes 200 python3 shapes.py --json "$work/shapes.json"
cd ../..
tar czf "$out/records.tgz" -C "$work" .
