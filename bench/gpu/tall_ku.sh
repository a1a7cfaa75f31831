#!/usr/bin/env bash
# Device tool, carry [".whl"]: tallskinny's one-tile C (M = N <= 11) with two steps of K
# loaded at once (KU 2) against one (the model's other parameters), in turns in one
# process (wgmma_lead.py), at K = 2^21 and 2^25 (2026-11-28, bench/results/2026-11-28-tall-forms).
#   OUT=dir [PART=before] bash bench/gpu/tall_ku.sh
# before: auto (KU 1 for every one-tile C then) beside KU 2; after (the default): auto
# (KU 2 where one_tile_steps says) beside KU 1, float32 and float64.
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
model='"variant": "tallskinny", "model": true'
(cd bench/gpu
 if [ "${PART:-after}" = before ]; then
   TAILN=30 step ku 400 python3 wgmma_lead.py --rounds 3 --json "$out/ku.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "ku2={$model, \"KU\": 2}" \
     --shapes 3x3x2097152,5x5x2097152,6x6x2097152,7x7x2097152,8x8x2097152,9x9x2097152,10x10x2097152,7x7x33554432,8x8x33554432,9x9x33554432,5x5x33554432
 else
   TAILN=30 step ku_after 300 python3 wgmma_lead.py --rounds 3 --json "$out/ku_after.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "ku1={$model, \"KU\": 1}" \
     --shapes 1x1x2097152,2x2x2097152,3x3x2097152,4x4x2097152,6x6x2097152,7x7x2097152,8x8x2097152,4x4x33554432,6x6x33554432,1x1x33554432
   TAILN=30 step ku_after64 300 python3 wgmma_lead.py --rounds 3 --dtype float64 --json "$out/ku_after64.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "ku1={$model, \"KU\": 1}" \
     --shapes 1x1x2097152,2x2x2097152,4x4x2097152,5x5x2097152,3x3x2097152,4x4x16777216,5x5x16777216
 fi)
