#!/usr/bin/env bash
# Device tool, carry [".whl"]: the weakest shapes of the H200 survey of seed 91
# (bench/results/2026-11-27-h200-survey91) and their neighbours beside other candidates,
# in turns beside cuBLAS (wgmma_lead.py, 3 rounds):
#   narrow64  float64 of 48-113 columns over K of thousands (7125 x 48 x 4368 at 68% of
#             cuBLAS in mma's 128 x 48 split 4, 2399 x 113 x 2963 at 84% in 64 x 128
#             split 16): auto beside mma's 64 x 48, 32 x 48, 64 x 64 and 128 x 32
#   rows64    float64 of 4 rows (4 x 9842 x 787 at 77%, mma's 16 x 128 split 2): auto
#             beside wide's model and mma's 16 x 64
#   narrow32  float32 of about 20 columns, M of thousands (5663 x 21 x 3171 at 74%,
#             tallskinny's 8 x 21 tiles): auto beside wgmma's 64 x 64 (split by the model)
#             and tallskinny's model with more groups
#   OUT=dir [PARTS="narrow64 rows64 narrow32"] bash bench/gpu/survey91_weak.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
cd bench/gpu
M='"variant": "mma", "KS": 2, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 2, "KSPLIT": "model"'
if part narrow64; then
  TAILN=16 step narrow64 280 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/narrow64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "m64x48={$M, \"WM\": 4, \"WN\": 1, \"MT\": 1, \"NT\": 6}" \
    --candidate "m32x48={$M, \"WM\": 2, \"WN\": 1, \"MT\": 1, \"NT\": 6}" \
    --candidate "m64x64={$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4}" \
    --candidate "m128x32={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 4}" \
    --shapes 7125x48x4368,8000x40x4000,5000x64x2048,3000x96x3000,2399x113x2963,1500x120x6000
fi
if part rows64; then
  TAILN=12 step rows64 280 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/rows64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate 'wide={"variant": "wide", "model": true}' \
    --candidate "m16x64={$M, \"WM\": 1, \"WN\": 2, \"MT\": 1, \"NT\": 4}" \
    --shapes 4x9842x787,2x8000x1000,8x6000x700,4x4096x4096,6x20000x300
fi
W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "KSPLIT": "model"'
if part narrow32; then
  TAILN=12 step narrow32 280 python3 wgmma_lead.py --rounds 3 --json "$out/narrow32.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "w64={$W, \"WN\": 64, \"WGM\": 1, \"WGN\": 1}" \
    --candidate 'ts={"variant": "tallskinny", "model": true}' \
    --shapes 5663x21x3171,8000x24x3000,4000x20x5000,10000x17x2000,3000x30x8000
fi
