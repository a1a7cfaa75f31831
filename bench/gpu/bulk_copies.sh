#!/bin/bash
# mma's B by bulk copies (BULK: cp.async.bulk and an mbarrier a tile) on Hopper, float64
# (device tool, carry [".whl"]):
#   tests   mma's tests on the GPU (the BULK tilings among them) and the routing's
#   ablate  where the large entry's time goes (wgmma_ablate.py): A's copies and B's apart,
#           with BULK 0 and 1
#   square  the large entry (64 x 128, three slabs ahead) with BULK 0 and 1 in turns beside
#           cuBLAS, K split by the model
#   narrow  the 64 x 64 deep-K entry and the tall 128 x 40 / 128 x 48 tiles, BULK 0 and 1
#   PARTS="tests ablate square narrow" bash bench/gpu/bulk_copies.sh
source bench/gpu/steps.sh
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }
LARGE='"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_mma.py tests/test_shipped_database.py -k "gpu or shipped or route"
fi
if part ablate; then
  for bulk in 0 1; do
    (cd bench/gpu && TAILN=4 step "ablate-bulk$bulk" 200 python3 wgmma_ablate.py --variant mma --dtype float64 \
      --shapes 4096x4096x4096:1,8192x8192x8192:1 --params "{$LARGE, \"BULK\": $bulk}" \
      --ablations none,acopies,bcopies,copies,none --json "$out/ablate-bulk$bulk.json")
  done
fi
if part square; then
  M='"variant": "mma", "KSPLIT": "model"'
  TAILN=12 step square 400 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/square.json" \
    --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,1024x1024x1024,4097x4097x4097,1024x1024x16384,768x768x16384,3000x200x3000 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "bulk0={$M, $LARGE, \"BULK\": 0}" --candidate "bulk1={$M, $LARGE, \"BULK\": 1}"
fi
if part narrow; then
  M='"variant": "mma", "KSPLIT": "model", "PAD": 4'
  T64='"WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "ASYNC_STAGES": 4'
  TALL='"WM": 4, "WN": 1, "MT": 2, "KS": 2, "ASYNC_STAGES": 2'
  TAILN=12 step narrow 400 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/narrow.json" \
    --shapes 16384x64x4096,4096x64x4096,50000x40x4096,8192x40x8192,16384x48x2048,4096x48x4096 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "d64={$M, $T64, \"BULK\": 0}" --candidate "d64bulk={$M, $T64, \"BULK\": 1}" \
    --candidate "t40={$M, $TALL, \"NT\": 5, \"BULK\": 0}" --candidate "t40bulk={$M, $TALL, \"NT\": 5, \"BULK\": 1}" \
    --candidate "t48={$M, $TALL, \"NT\": 6, \"BULK\": 0}" --candidate "t48bulk={$M, $TALL, \"NT\": 6, \"BULK\": 1}"
fi
