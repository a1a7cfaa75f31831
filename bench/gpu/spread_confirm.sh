#!/usr/bin/env bash
# Device tool, carry [".whl"]: the short-K spread and the few-row wide C as shipped
# (2026-11-27, bench/results/2026-11-27-h100-spread), in turns in one process
# (wgmma_lead.py, 3 rounds) beside what auto ran before:
#   spread  tallskinny's model against itself with the constants before the change
#           (SPREAD_GROUP 1024, GPU_MIN_TERMS 16), float32 and float64, where it moves the
#           groups (a K of 8192 to 2^20) and two controls it leaves
#   wide    auto (the wide kernel) against mma's 16 x 128 tile split by auto's model
#           (auto's before) at float32 C of 1-3 rows and 257-500 columns
#   layers  the wide kernel's model as shipped (at most 512 layers of K) against itself at
#           the bound before (MAX_SPLIT 256), float32 and float64, C of one block of columns
#           (where it moves) and wider ones (where it does not)
#   steps   the same with the steps before (FEW_STEPS_ROWS empty: 8 steps' loads at once
#           where the registers allow) at float32 C of 6-11 rows and 1024-8192 columns
#   regs    kernel_registers.py: the registers ptxas builds the wide kernel of 6-11 rows to,
#           4 and 8 steps' loads at once (float32)
#   tests   tests/test_tallskinny.py, test_wide.py, test_shipped_database.py and
#           test_correctness.py on the GPU, in 8 processes (sharded_tests.sh)
#   fuzz    bench/fuzz_auto.py, seeds $SEEDS (0 1)
#   OUT=dir [PARTS="spread wide layers steps regs tests fuzz"] bash bench/gpu/spread_confirm.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part spread; then
  ts='"variant": "tallskinny", "model": true'
  k='portgemm.auto.tallskinny'
  before="before={$ts, \"constants\": {\"$k.SPREAD_GROUP\": 1024, \"$k.GPU_MIN_TERMS\": 16}}"
  (cd bench/gpu
   TAILN=22 step spread 300 python3 wgmma_lead.py --rounds 3 --json "$out/spread.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "$before" \
     --shapes 1x64x65536,1x100x65536,1x16x65536,3x3x65536,8x8x16384,8x8x65536,9x9x131072,16x16x65536,2x160x65536,1x256x100000,32x6x65536,5x5x500000,1x1x1048576,2x2x1048576,3x3x1048576,5x5x1048576,8x3x1048576,1x16x1048576,3x3x2097152,8x8x33554432
   TAILN=7 step spread64 200 python3 wgmma_lead.py --rounds 3 --dtype float64 --json "$out/spread64.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "$before" \
     --shapes 1x64x65536,8x8x65536,3x3x131072,2x2x1048576,5x5x1048576,8x8x16777216)
fi
if part wide; then
  M='"variant": "mma", "WM": 1, "WN": 4, "MT": 1, "NT": 4, "KS": 2, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 0, "KSPLIT": "model"'
  (cd bench/gpu
   TAILN=12 step wide 250 python3 wgmma_lead.py --rounds 3 --json "$out/wide.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "m16x128={$M}" \
     --shapes 1x257x751400,1x300x498338,1x450x65536,1x300x4096,1x500x4096,2x450x331858,2x300x65536,3x500x65536,3x257x576923,3x300x200000)
fi
if part layers; then
  wd='"variant": "wide", "model": true'
  before="before={$wd, \"constants\": {\"portgemm.auto.wide.MAX_SPLIT\": 256}}"
  (cd bench/gpu
   TAILN=13 step layers 250 python3 wgmma_lead.py --rounds 3 --json "$out/layers.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "$before" \
     --shapes 1x257x751400,1x300x498338,1x450x332594,1x500x299401,3x500x298210,2x450x331858,1x300x65536,3x257x65536,1x512x1000000,8x512x500000,1x1000x150000,1x8192x8192
   TAILN=4 step layers64 150 python3 wgmma_lead.py --rounds 3 --dtype float64 --json "$out/layers64.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "$before" --shapes 1x512x1000000,2x512x500000,1x8192x8192)
fi
if part steps; then
  wd='"variant": "wide", "model": true'
  (cd bench/gpu
   TAILN=25 step steps 250 python3 wgmma_lead.py --rounds 3 --json "$out/steps.json" \
     --candidate 'auto={"variant": "auto"}' \
     --candidate "before={$wd, \"constants\": {\"portgemm.auto.wide.FEW_STEPS_ROWS\": []}}" \
     --shapes "$(python3 -c "print(','.join(f'{m}x{n}x{k}' for k in (4096, 16384) for n in (1024, 4096, 8192) for m in (6, 7, 8, 9, 10, 11)))")")
fi
if part regs; then
  args=()
  for rows in 6 7 8 9 10 11; do for ku in 4 8; do
    args+=(--candidate "${rows}r${ku}={\"variant\": \"wide\", \"BS\": 256, \"tile_y\": $rows, \"tile_x\": 2, \"KU\": $ku, \"KSPLIT\": 32}")
  done; done
  (cd bench/gpu && TAILN=16 step regs 150 python3 kernel_registers.py --dtype float32 "${args[@]}")
fi
if part tests; then  # in one process these ran past 300 s (2-confirm/tests.txt)
  SHARDS=8 bash bench/gpu/sharded_tests.sh tests/test_tallskinny.py tests/test_wide.py \
    tests/test_shipped_database.py tests/test_correctness.py
fi
for seed in ${SEEDS:-0 1}; do
  part fuzz || break
  TAILN=3 step "fuzz_$seed" 200 python3 bench/fuzz_auto.py --device gpu --cases 160 --seed "$seed" \
    --json "$out/fuzz_$seed.json"
done
