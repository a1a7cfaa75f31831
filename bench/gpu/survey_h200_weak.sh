#!/usr/bin/env bash
# Device tool, carry [".whl"]: the weakest shapes of the H200 survey of 2026-11-27 (seed
# 73; bench/results/2026-11-27-h200-few-tiles/1-survey) beside other candidates, in turns
# beside cuBLAS (wgmma_lead.py, 3 rounds):
#   weak32  float32 shallow and short K in wgmma's shipped 128-wide tile (4498 x 1634 x 23
#           at 87% of cuBLAS, 626 x 1139 x 221 at 95%): auto beside wgmma's 64-wide and
#           one-group tiles and vec's 8 x 4 (the odd-columns tile)
#   weak64  float64 shallow and short K in mma's shipped 64 x 128 tile (4821 x 1619 x 42
#           at 86%, 725 x 714 x 159 at 87%, 4698 x 303 x 14 at 90%): auto beside the same
#           tile without cp.async stages, mma's 64 x 64 and vec's 4 x 2
#   OUT=dir [PARTS="weak32 weak64"] bash bench/gpu/survey_h200_weak.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
cd bench/gpu
W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "KSPLIT": "model"'
if part weak32; then
  TAILN=16 step weak32 280 python3 wgmma_lead.py --rounds 3 --json "$out/weak32.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "w64={$W, \"WN\": 64, \"WGM\": 2, \"WGN\": 1}" \
    --candidate "w128g1={$W, \"WN\": 128, \"WGM\": 1, \"WGN\": 1}" \
    --candidate 'vec8x4={"variant": "vec", "tile_y": 8, "tile_x": 4, "vw": 4, "wg_y": 1, "wg_x": 64, "PACKED": 0, "KSPLIT": 1}' \
    --shapes 4498x1634x23,466x4448x33,3000x3000x32,4096x4096x24,626x1139x221,2343x1710x399,2048x2048x128
fi
M='"variant": "mma", "KS": 1, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "KSPLIT": "model"'
if part weak64; then
  TAILN=16 step weak64 280 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/weak64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "as0={$M, \"WM\": 1, \"WN\": 4, \"MT\": 4, \"NT\": 4, \"ASYNC_STAGES\": 0}" \
    --candidate "m64={$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"ASYNC_STAGES\": 2}" \
    --candidate 'vec4x2={"variant": "vec", "tile_y": 4, "tile_x": 2, "vw": 2, "wg_y": 2, "wg_x": 64, "PACKED": 0, "KSPLIT": 1}' \
    --shapes 4821x1619x42,4698x303x14,4096x4096x24,2000x2000x64,725x714x159,1025x2130x276
fi
