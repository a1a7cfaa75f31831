#!/usr/bin/env bash
# Device tool, carry [".whl"]: float32 C of few tiles over a deep K, where the random
# survey (survey.sh, 2026-11-27) found auto at 0.50-0.89x cuBLAS (xgemm's 64 x 64 split
# along K, or mma's 16 x 128): auto beside wgmma's tiles of 64 x 32 to 128 x 64 split by
# auto's model, mma's 16 x 128, tallskinny's and wide's own models, in turns with cuBLAS
# (wgmma_lead.py). About 6 minutes.
#   OUT=dir bash bench/gpu/deep_small_c.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "WGN": 1, "KSPLIT": "model"'
M='"variant": "mma", "WM": 1, "WN": 4, "MT": 1, "NT": 4, "KS": 2, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 0, "KSPLIT": "model"'
common=(--candidate 'auto={"variant": "auto"}'
        --candidate "w64x32={$W, \"WGM\": 1, \"WN\": 32}" --candidate "w64x64={$W, \"WGM\": 1, \"WN\": 64}"
        --candidate "w128x64={$W, \"WGM\": 2, \"WN\": 64}" --candidate "w64x128={$W, \"WGM\": 1, \"WN\": 128}"
        --candidate "m16x128={$M}" --candidate 'ts={"variant": "tallskinny", "model": true}')
cd bench/gpu
TAILN=12 step deep 300 python3 wgmma_lead.py --rounds 3 --json "$out/deep.json" "${common[@]}" \
  --shapes ${SHAPES:-43x75x2632756,55x1023x112425,54x52x29401,33x64x93094,100x100x1000000,32x128x500000,24x200x300000,64x64x2097152,128x96x400000}
TAILN=8 step rows 200 python3 wgmma_lead.py --rounds 3 --json "$out/rows.json" "${common[@]}" \
  --candidate 'wide={"variant": "wide", "model": true}' \
  --shapes ${ROWS:-1x257x751400,2x300x1000000,3x500x400000,4x1000x200000,8x600x300000,16x400x300000}
