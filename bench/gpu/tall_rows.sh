#!/usr/bin/env bash
# Device tool, carry [".whl"]: issue 9's short K (M = N = 5-9, K = 2^21) with C's rows
# split between two or three blocks of a group (tallskinny's tile_y under M, TG the
# blocks a group holds): fewer sums a work-item, so more work-items a compute unit,
# B's values read by every block of the group. wgmma_lead.py, 3 rounds in turn, beside
# auto (tallskinny's model) and cuBLAS; K = 2^25 as a control.
#   OUT=dir bash bench/gpu/tall_rows.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
cd bench/gpu
T='"variant": "tallskinny", "model": true'
TAILN=8 step rows 280 python3 wgmma_lead.py --rounds 3 --json "$out/rows.json" \
  --candidate 'auto={"variant": "auto"}' \
  --candidate "r5g2b512={$T, \"tile_y\": 5, \"TG\": 2, \"BS\": 512}" \
  --candidate "r5g2b256={$T, \"tile_y\": 5, \"TG\": 2, \"BS\": 256}" \
  --candidate "r5g1={$T, \"tile_y\": 5, \"TG\": 1}" \
  --candidate "r4g2b256={$T, \"tile_y\": 4, \"TG\": 2, \"BS\": 256}" \
  --candidate "r3g4b256={$T, \"tile_y\": 3, \"TG\": 4, \"BS\": 256}" \
  --shapes 9x9x2097152,8x8x2097152,7x7x2097152,5x5x2097152,9x9x33554432
