#!/bin/bash
# mma's A slab m-major (A_ROWS: copied two values at a time, each step's k reordered) on
# Hopper, float64 (device tool, carry [".whl"]):
#   tests   mma's tests on the GPU (the A_ROWS tilings among them) and the routing's
#   ablate  the large entry with A_ROWS: none, acopies, elementa (A's copies value by value)
#   square  the large entry (64 x 128, three slabs ahead) with A_ROWS 0 and 1 in turns
#           beside cuBLAS, K split by the model
#   narrow  the 64 x 64 deep-K entry and the tall 128 x 40 / 128 x 16 tiles, A_ROWS 0 and 1
#   PARTS="tests ablate square narrow" bash bench/gpu/a_rows.sh
source bench/gpu/steps.sh
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }
LARGE='"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_mma.py tests/test_shipped_database.py -k "gpu or shipped or route"
fi
if part ablate; then
  (cd bench/gpu && TAILN=4 step ablate 200 python3 wgmma_ablate.py --variant mma --dtype float64 \
    --shapes 4096x4096x4096:1,8192x8192x8192:1 --params "{$LARGE, \"A_ROWS\": 1}" \
    --ablations none,acopies,elementa,bcopies,none --json "$out/ablate.json")
fi
if part square; then
  M='"variant": "mma", "KSPLIT": "model"'
  TAILN=12 step square 400 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/square.json" \
    --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,1024x1024x1024,4097x4097x4097,1024x1024x16384,768x768x16384,3000x200x3000 \
    --candidate "rows0={$M, $LARGE, \"A_ROWS\": 0}" --candidate "rows1={$M, $LARGE, \"A_ROWS\": 1}"
fi
if part narrow; then
  M='"variant": "mma", "KSPLIT": "model", "PAD": 4'
  T64='"WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "ASYNC_STAGES": 4'
  TALL='"WM": 4, "WN": 1, "MT": 2, "KS": 2, "ASYNC_STAGES": 2'
  TAILN=12 step narrow 400 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/narrow.json" \
    --shapes 16384x64x4096,4096x64x4096,50000x40x4096,8192x40x8192,8192x16x8192,4096x16x4096 \
    --candidate "d64={$M, $T64, \"A_ROWS\": 0}" --candidate "d64rows={$M, $T64, \"A_ROWS\": 1}" \
    --candidate "t40={$M, $TALL, \"NT\": 5, \"A_ROWS\": 0}" --candidate "t40rows={$M, $TALL, \"NT\": 5, \"A_ROWS\": 1}" \
    --candidate "t16={$M, $TALL, \"NT\": 2, \"A_ROWS\": 0}" --candidate "t16rows={$M, $TALL, \"NT\": 2, \"A_ROWS\": 1}"
fi
