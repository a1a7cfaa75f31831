#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): the record of wgmma's new defaults (two slabs
# read ahead, the low TF32 parts left unrounded, the 128 x 128 tile of two warpgroups in
# the Hopper entries): the GPU's tests, auto beside cuBLAS on the square sizes and on issue
# 9's deep-K shapes, the deep-K entry's split again, the bench's own command, the high
# TF32 parts' rounding (integer operations against cvt.rna). ~7 minutes.
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt"
TAILN=4 step pytest 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_shipped_database.py tests/test_wgmma.py -k "gpu or nvidia or h200 or capability"
TAILN=5 step high_parts 150 python3 bench/gpu/wgmma_ablate.py --params '{"WN": 128, "WGN": 1, "LEAD": 2}' \
  --shapes 4096x4096x4096:1,8192x8192x8192:1,1024x1024x16384:4,2048x2048x2048:1 \
  --ablations none,cvthi,none,cvthi --json "$out/high_parts.json"
TAILN=12 step bench 150 python3 -m portgemm.bench --device gpu --variant auto --no-progress \
  --sizes 1024x1024x16384,16384x64x4096,2048,4096,8192 --reps 10 --warmup 3
cd bench/gpu
TAILN=14 step goals 120 python3 goals.py --json "$out/goals.json"
TAILN=6 step deep 120 python3 shapes.py --only deep --json "$out/deep.json"
TAILN=6 step splits 150 python3 wgmma_lead.py --candidates "wide lead 2" --rounds 3 \
  --shapes 1024x1024x16384:2,1024x1024x16384:4,1024x1024x16384:8,2048x1024x16384:1,2048x1024x16384:4 \
  --json "$out/splits.json"
