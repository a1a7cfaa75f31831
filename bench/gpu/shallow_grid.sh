#!/usr/bin/env bash
# Device tool, carry [".whl"]: two weak spots of the 2026-11-27 survey (seed 53, scale 5:
# float32 9314 x 1025 x 3 at 48% of cuBLAS, 8057 x 1025 x 2 at 56%, 2838 x 8932 x 7 at
# 64%; float64 2 x 54 x 6600674 at 70%), candidates in turns beside cuBLAS (wgmma_lead.py):
#   shallow float32 C of 1-16 MB... 150 MB at K = 1-32: auto (wgmma's 128 x 128) beside
#           xgemm's 64 x 64 (the small entry's tile), and kernels with no local memory
#           that write C in runs of 16-byte vectors: vec (tile_y x tile_x, vectors of 4)
#           and tiled, in groups of 128 whose work-items lie along C's rows
#   tall64  float64 C of 65-128 values over a deep K, which tallskinny holds in one
#           work-item (2 registers a value): its model beside the same model with a
#           budget of 64 values (DOUBLE_ACCUMULATORS; C then takes several tiles), groups
#           of 256 (the record's run had one budget, ACCUMULATORS, 128 then, set to 64)
#   refine  float32 K = 1-12: vec's 4 x 4 tile (the fastest of shallow's) in groups of
#           other shapes, beside 8 x 4, 2 x 4 and auto
#   shallow64 float64 at K = 1-16: auto (mma) beside vec's 4 x 4 and 2 x 4 tiles in
#           vectors of 2 (16 bytes)
#   confirm auto after (vec at K <= 7 / 6; float64 tallskinny tiles of at most 64 values)
#           beside the entries' tiles it replaced (confirm32, confirm64) and tallskinny's
#           model before (one tile up to 128 doubles; confirm_tall),
#           on the grid's shapes and new ones; the GPU tests of the changed paths
#           (sharded_tests.sh) and bench/fuzz_auto.py (seed $SEED, 6)
#   beyond  K <= 7 where a side of C is under 512 (outside the shallow-k class, so on the
#           size classes' tiles): auto beside vec's tiles of the rule (4 and 8 rows of one
#           vector), float32 and float64
#   boundary float64 C of 90-100 values over a deep K: auto (one tile up to 96 values)
#           beside the budgets of 128 and 64 (DOUBLE_ACCUMULATORS)
#   OUT=dir [PARTS="shallow tall64 refine shallow64 confirm beyond boundary"] bash bench/gpu/shallow_grid.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
X='"variant": "xgemm", "MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8, "ASYNC_STAGES": 0, "SWIZZLE": 1, "KSPLIT": 1'
tall64() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m, n in ((2, 54), (3, 40), (4, 30), (1, 100), (1, 128), (10, 10), (11, 11), (8, 16), (9, 12), (5, 20))))"; }
confirm_tall() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m, n in ((3, 30), (6, 20), (12, 10), (1, 90), (2, 60), (7, 11), (4, 20), (9, 9), (11, 11), (1, 128), (1, 65))))"; }
boundary() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m, n in ((8, 12), (4, 24), (3, 32), (1, 96), (2, 48), (6, 16), (1, 97), (7, 14), (10, 10), (5, 19))))"; }
cd bench/gpu
if part shallow; then
  TAILN=14 step shallow 420 python3 wgmma_lead.py --rounds 3 --json "$out/shallow.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "x64={$X}" \
    --candidate 'v1x4={"variant": "vec", "tile_y": 1, "tile_x": 4, "vw": 4, "wg_y": 1, "wg_x": 128}' \
    --candidate 'v2x4={"variant": "vec", "tile_y": 2, "tile_x": 4, "vw": 4, "wg_y": 2, "wg_x": 64}' \
    --candidate 'v4x4={"variant": "vec", "tile_y": 4, "tile_x": 4, "vw": 4, "wg_y": 4, "wg_x": 32}' \
    --candidate 'v2x8={"variant": "vec", "tile_y": 2, "tile_x": 8, "vw": 4, "wg_y": 2, "wg_x": 64}' \
    --candidate 'v4x8={"variant": "vec", "tile_y": 4, "tile_x": 8, "vw": 4, "wg_y": 4, "wg_x": 32}' \
    --candidate 't2x4={"variant": "tiled", "tile_y": 2, "tile_x": 4, "wg_y": 2, "wg_x": 64}' \
    --candidate 't4x4={"variant": "tiled", "tile_y": 4, "tile_x": 4, "wg_y": 4, "wg_x": 32}' \
    --shapes 9314x1025x3,8057x1025x2,2838x8932x7,4096x4096x1,4096x4096x4,4096x4096x8,4096x4096x16,4096x4096x32,1000x1000x4,2048x2048x8,16384x1024x5,1025x4097x6
fi
V='"variant": "vec", "vw": 4, "tile_x": 4'
if part refine; then
  TAILN=20 step refine 400 python3 wgmma_lead.py --rounds 3 --json "$out/refine.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "v4x4={$V, \"tile_y\": 4, \"wg_y\": 4, \"wg_x\": 32}" \
    --candidate "g8x16={$V, \"tile_y\": 4, \"wg_y\": 8, \"wg_x\": 16}" \
    --candidate "g2x64={$V, \"tile_y\": 4, \"wg_y\": 2, \"wg_x\": 64}" \
    --candidate "g1x128={$V, \"tile_y\": 4, \"wg_y\": 1, \"wg_x\": 128}" \
    --candidate "g4x64={$V, \"tile_y\": 4, \"wg_y\": 4, \"wg_x\": 64}" \
    --candidate "g2x32={$V, \"tile_y\": 4, \"wg_y\": 2, \"wg_x\": 32}" \
    --candidate "v8x4={$V, \"tile_y\": 8, \"wg_y\": 4, \"wg_x\": 32}" \
    --candidate "v2x4={$V, \"tile_y\": 2, \"wg_y\": 4, \"wg_x\": 32}" \
    --shapes 9314x1025x3,8057x1025x2,2838x8932x7,4096x4096x1,4096x4096x2,4096x4096x3,4096x4096x5,4096x4096x6,4096x4096x7,4096x4096x8,4096x4096x10,4096x4096x12,1025x4097x6,30000x1000x3,512x65536x2,65536x512x4,777x3001x5,1024x1024x8,8192x8192x2,600x601x1
fi
if part shallow64; then
  TAILN=12 step shallow64 300 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/shallow64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate 'v4x4={"variant": "vec", "vw": 2, "tile_x": 4, "tile_y": 4, "wg_y": 4, "wg_x": 32}' \
    --candidate 'v2x4={"variant": "vec", "vw": 2, "tile_x": 4, "tile_y": 2, "wg_y": 4, "wg_x": 32}' \
    --candidate 'v4x2={"variant": "vec", "vw": 2, "tile_x": 2, "tile_y": 4, "wg_y": 4, "wg_x": 32}' \
    --shapes 9314x1025x3,8057x1025x2,2838x8932x7,4096x4096x1,4096x4096x4,4096x4096x8,4096x4096x16,1025x4097x6,3904x512x5,753x1133x16,2048x2048x2
fi
if part confirm; then
  TAILN=30 step confirm32 300 python3 wgmma_lead.py --rounds 3 --json "$out/confirm32.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate 'entry={"variant": "wgmma", "WN": 128, "WGM": 2, "WGN": 1, "KS": 2, "PAD": 0, "LEAD": 2, "KSPLIT": 1}' \
    --shapes 9314x1025x3,8057x1025x2,2838x8932x7,4096x4096x1,4096x4096x3,4096x4096x5,4096x4096x7,4096x4096x8,1025x4097x6,12000x3000x4,3001x777x2,513x513x1,520x70000x3,70000x520x5,2049x2049x6,5000x5000x7,1536x1536x4,16384x16384x1,600x601x1,777x3001x5
  TAILN=20 step confirm64 300 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/confirm64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate 'entry={"variant": "mma", "WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 3, "KSPLIT": 1}' \
    --shapes 9314x1025x3,8057x1025x2,1025x4097x6,4096x4096x1,4096x4096x4,4096x4096x7,3904x512x5,2048x2048x2,3001x777x2,5000x5001x6,12000x3000x4,513x513x1,2049x2049x5
  T='"variant": "tallskinny", "model": true'
  TAILN=16 step confirm_tall 300 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/confirm_tall.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "before={$T, \"constants\": {\"portgemm.auto.tallskinny.DOUBLE_ACCUMULATORS\": 128}}" \
    --shapes "$(confirm_tall),2x54x6600674"
  cd ../..
  TAILN=8 SHARDS=8 step tests 300 bash bench/gpu/sharded_tests.sh tests/test_fast_variants.py \
    tests/test_shipped_database.py tests/test_tallskinny.py
  TAILN=3 step fuzz 200 python3 bench/fuzz_auto.py --device gpu --cases 160 --seed "${SEED:-6}" --json "$out/fuzz.json"
  cd bench/gpu
fi
if part beyond; then
  S=9000x300x3,5000x300x3,300x5000x4,256x20000x2,20000x256x6,128x8192x4,8192x128x5,400x400x3,200x3000x7,64x65536x2,65536x64x3,100x100000x1,480x2000x5
  TAILN=14 step beyond32 240 python3 wgmma_lead.py --rounds 3 --json "$out/beyond32.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "v4={$V, \"tile_y\": 4, \"wg_y\": 2, \"wg_x\": 64}" \
    --candidate "v8={$V, \"tile_y\": 8, \"wg_y\": 2, \"wg_x\": 64}" --shapes "$S"
  TAILN=14 step beyond64 240 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/beyond64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate 'v4={"variant": "vec", "vw": 2, "tile_x": 2, "tile_y": 4, "wg_y": 2, "wg_x": 64}' --shapes "$S"
fi
if part boundary; then
  T='"variant": "tallskinny", "model": true'
  TAILN=12 step boundary 240 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/boundary.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "d128={$T, \"constants\": {\"portgemm.auto.tallskinny.DOUBLE_ACCUMULATORS\": 128}}" \
    --candidate "d64={$T, \"constants\": {\"portgemm.auto.tallskinny.DOUBLE_ACCUMULATORS\": 64}}" \
    --shapes "$(boundary)"
fi
if part tall64; then
  T='"variant": "tallskinny", "model": true'
  TAILN=12 step tall64 240 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/tall64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "model={$T}" \
    --candidate "acc64={$T, \"constants\": {\"portgemm.auto.tallskinny.DOUBLE_ACCUMULATORS\": 64}}" \
    --candidate "bs256={$T, \"BS\": 256}" \
    --shapes "$(tall64),2x54x6600674"
fi
