#!/usr/bin/env bash
# Device tool, carry [".whl"]: mma's B_BULK (B's slabs by Hopper's bulk copies, the TMA
# engine) in float64: the GPU tests of mma and of xgemm's asynchronous copies (the
# pipeline they share), then B_BULK 1 beside 0 on the entries' tiles in turns beside
# cuBLAS DGEMM (wgmma_lead.py, 3 rounds). After the ablation of
# bench/results/2026-11-27-h200-mma-float64-copies (2-5% faster at 2048-8192).
#   OUT=dir [PARTS="tests turns"] bash bench/gpu/mma_bulk.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  OUT=$out/tests SHARDS=8 timeout 300 bash bench/gpu/sharded_tests.sh tests/test_mma.py \
    tests/test_fast_variants.py -k "mma or async or ASYNC"
fi
M='"variant": "mma", "KS": 1, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "KSPLIT": "model"'
L="$M, \"WM\": 1, \"WN\": 4, \"MT\": 4, \"NT\": 4, \"ASYNC_STAGES\": 3"  # the large entry
D="$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"ASYNC_STAGES\": 4"  # the deep-K entry
if part turns; then
  (cd bench/gpu && TAILN=12 step turns 280 python3 wgmma_lead.py --dtype float64 --rounds 3 \
    --json "$out/turns.json" --candidate "large={$L}" --candidate "large_bulk={$L, \"B_BULK\": 1}" \
    --candidate "deep={$D}" --candidate "deep_bulk={$D, \"B_BULK\": 1}" \
    --shapes 1024x1024x1024,2048x2048x2048,3000x3000x3000,4096x4096x4096,4097x4097x4097,8192x8192x8192,896x2560x1024,2560x896x3500,16384x64x4096,1100x1100x256)
fi
