#!/usr/bin/env bash
# Device tool, carry [".whl"]: float32 C of few values over a deep K on Hopper, two grids
# in turns beside cuBLAS (wgmma_lead.py, 3 rounds), after the random survey (survey.sh)
# found auto at 0.50-0.89x cuBLAS there:
#   first the weak shapes themselves and a few more (first_deep, first_rows): auto beside
#         wgmma's 64 x 32, 64 x 64, 128 x 64 and 64 x 128, mma's 16 x 128, tallskinny's
#         and (C of few rows) the wide kernel's own models (the record's 4-first/ ran it
#         as deep_small_c.sh, whose deep.* and rows.* these are)
#   rows  C of 1-16 rows and 160-1500 columns, 0.6 GB of operands: auto beside the wide
#         kernel's and tallskinny's own models, mma's 16 x 128 and wgmma's 64 x 64 tiles
#         split by auto's model
#   deep  C of 24-128 a side, 6 GFLOP: auto beside xgemm's 64 x 64 (the small-class
#         entry's tile) and wgmma's 64 x 32, 64 x 64, 128 x 64 and 128 x 128, each split by
#         auto's model
#   few   C of 1-8 rows and 32-400 columns over a deep K (0.6 GB), the same candidates as
#         rows
#   skinny C of 6-14 rows and 700-4096 columns at K = 4096 and 65536: the wide kernel's
#         model against mma's 16 x 128 tile (auto's tensor-core tile from 16 rows)
#   fuzz  bench/fuzz_auto.py, seed $SEED (5; auto on random shapes, right or not)
#   after auto (tallskinny's even columns and the few-rows class, 2026-11-27) beside mma's
#         16 x 128 tile (auto's before for most of these) and the wide kernel's model,
#         C of 1-8 rows over a deep K, float32 and float64
#   shorter the same beside xgemm's 64 x 64 tile too, at K = 4096 and 65536 (float32)
#   uneven C of 1-3 rows whose columns tallskinny's tiles do not cover evenly (auto's mma
#         16 x 128 below 512 columns) over a deep K and at K = 65536, float32 and float64:
#         auto beside the wide kernel's and tallskinny's own models and mma's tile
#         ($DTYPES, default both)
#   widegrid the wide kernel's model against itself with a parameter set over it (groups of
#         64-128, one column a work-item, 512 layers, 16 steps' loads at once) at C of
#         1-16 rows, float32
#   widerows the same at C of 1-11 rows (float32; float64 1-3, beyond which mma's tiles
#         take a wide C) and 1024-8192 columns at K = 4096 and 16384: one column a
#         work-item, 4 or 16 steps' loads at once, groups of 128
#   ninerows the same at 9 and 10 rows (8 steps, 64 registers, 0.84-0.87x cuBLAS at
#         8192 x 16384): groups of 128, one column a work-item, 4 steps, float32
#   OUT=dir [PARTS="first rows deep few skinny fuzz after shorter uneven widegrid widerows ninerows"] bash bench/gpu/small_c_grid.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "WGN": 1, "KSPLIT": "model"'
M='"variant": "mma", "WM": 1, "WN": 4, "MT": 1, "NT": 4, "KS": 2, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 0, "KSPLIT": "model"'
X='"variant": "xgemm", "MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8, "ASYNC_STAGES": 0, "SWIZZLE": 1, "KSPLIT": "model"'
rows() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m in (1, 2, 3, 5, 8, 12, 16) for n in (160, 300, 700, 1500)))"; }
deep() { python3 -c "print(','.join(f'{m}x{n}x{int(6e9 / (m * n))}' for m, n in ((24, 40), (43, 75), (33, 64), (48, 48), (54, 52), (64, 64), (60, 100), (64, 128), (80, 80), (96, 96), (100, 100), (120, 64), (128, 128), (40, 200))))"; }
few() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m in (1, 2, 4, 8) for n in (32, 64, 100, 160, 256, 400)))"; }
skinny() { python3 -c "print(','.join(f'{m}x{n}x{k}' for k in (4096, 65536) for m in (6, 8, 10, 12, 14) for n in (700, 1500, 4096)))"; }
if part fuzz; then
  TAILN=3 step fuzz 200 python3 bench/fuzz_auto.py --device gpu --cases 160 --seed "${SEED:-5}" --json "$out/fuzz.json"
fi
cd bench/gpu
if part first; then
  first=(--candidate 'auto={"variant": "auto"}'
         --candidate "w64x32={$W, \"WGM\": 1, \"WN\": 32}" --candidate "w64x64={$W, \"WGM\": 1, \"WN\": 64}"
         --candidate "w128x64={$W, \"WGM\": 2, \"WN\": 64}" --candidate "w64x128={$W, \"WGM\": 1, \"WN\": 128}"
         --candidate "m16x128={$M}" --candidate 'ts={"variant": "tallskinny", "model": true}')
  TAILN=12 step first_deep 300 python3 wgmma_lead.py --rounds 3 --json "$out/first_deep.json" "${first[@]}" \
    --shapes 43x75x2632756,55x1023x112425,54x52x29401,33x64x93094,100x100x1000000,32x128x500000,24x200x300000,64x64x2097152,128x96x400000
  TAILN=8 step first_rows 200 python3 wgmma_lead.py --rounds 3 --json "$out/first_rows.json" "${first[@]}" \
    --candidate 'wide={"variant": "wide", "model": true}' \
    --shapes 1x257x751400,2x300x1000000,3x500x400000,4x1000x200000,8x600x300000,16x400x300000
fi
if part few; then
  TAILN=3 step few 280 python3 wgmma_lead.py --rounds 3 --json "$out/few.json" \
    --candidate 'auto={"variant": "auto"}' --candidate 'wide={"variant": "wide", "model": true}' \
    --candidate 'ts={"variant": "tallskinny", "model": true}' --candidate "m16x128={$M}" \
    --shapes "$(few)"
fi
after() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m, n in ((1, 160), (1, 200), (1, 400), (2, 160), (2, 240), (2, 256), (2, 400), (4, 160), (4, 200), (4, 256), (4, 400), (5, 160), (8, 160), (8, 256), (8, 400), (1, 300), (8, 100))))"; }
if part after; then
  for dtype in float32 float64; do
    MD=${M/\"ASYNC_STAGES\": 0/\"ASYNC_STAGES\": $([ $dtype = float64 ] && echo 2 || echo 0)}
    TAILN=3 step "after_$dtype" 250 python3 wgmma_lead.py --rounds 3 --dtype $dtype --json "$out/after_$dtype.json" \
      --candidate 'auto={"variant": "auto"}' --candidate "m16x128={$MD}" \
      --candidate 'wide={"variant": "wide", "model": true}' --shapes "$(after)"
  done
fi
shorter() { python3 -c "print(','.join(f'{m}x{n}x{k}' for k in (4096, 65536) for m, n in ((1, 64), (1, 160), (1, 400), (2, 160), (2, 256), (4, 200), (8, 160), (8, 400))))"; }
if part shorter; then
  TAILN=3 step shorter 200 python3 wgmma_lead.py --rounds 3 --json "$out/shorter.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "m16x128={$M}" --candidate "x64={$X}" \
    --candidate 'wide={"variant": "wide", "model": true}' --shapes "$(shorter)"
fi
if part skinny; then
  TAILN=3 step skinny 200 python3 wgmma_lead.py --rounds 3 --json "$out/skinny.json" \
    --candidate 'auto={"variant": "auto"}' --candidate 'wide={"variant": "wide", "model": true}' \
    --candidate "m16x128={$M}" --shapes "$(skinny)"
fi
if part rows; then
  TAILN=30 step rows 280 python3 wgmma_lead.py --rounds 3 --json "$out/rows.json" \
    --candidate 'auto={"variant": "auto"}' --candidate 'wide={"variant": "wide", "model": true}' \
    --candidate 'ts={"variant": "tallskinny", "model": true}' --candidate "m16x128={$M}" \
    --candidate "w64x64={$W, \"WGM\": 1, \"WN\": 64}" --shapes "$(rows)"
fi
if part deep; then
  TAILN=16 step deep 280 python3 wgmma_lead.py --rounds 3 --json "$out/deep.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "x64={$X}" \
    --candidate "w64x32={$W, \"WGM\": 1, \"WN\": 32}" --candidate "w64x64={$W, \"WGM\": 1, \"WN\": 64}" \
    --candidate "w128x64={$W, \"WGM\": 2, \"WN\": 64}" --candidate "w128x128={$W, \"WGM\": 2, \"WN\": 128}" \
    --shapes "$(deep)"
fi
uneven() { python3 -c "print(','.join(f'{m}x{n}x{k or int(1.5e8 / (m + n))}' for k in (0, 65536) for m, n in ((1, 100), (1, 130), (1, 257), (1, 300), (1, 333), (1, 450), (1, 500), (2, 300), (2, 450), (3, 500), (3, 257), (3, 130))))"; }
if part uneven; then
  for dtype in ${DTYPES:-float32 float64}; do
    MD=${M/\"ASYNC_STAGES\": 0/\"ASYNC_STAGES\": $([ $dtype = float64 ] && echo 2 || echo 0)}
    TAILN=26 step "uneven_$dtype" 280 python3 wgmma_lead.py --rounds 3 --dtype $dtype --json "$out/uneven_$dtype.json" \
      --candidate 'auto={"variant": "auto"}' --candidate 'wide={"variant": "wide", "model": true}' \
      --candidate 'ts={"variant": "tallskinny", "model": true}' --candidate "m16x128={$MD}" --shapes "$(uneven)"
  done
fi
if part widegrid; then
  wd='"variant": "wide", "model": true'
  TAILN=18 step widegrid 300 python3 wgmma_lead.py --rounds 3 --json "$out/widegrid.json" \
    --candidate "model={$wd}" --candidate "bs128={$wd, \"BS\": 128}" \
    --candidate "tn1={$wd, \"tile_x\": 1}" --candidate "bs128tn1={$wd, \"BS\": 128, \"tile_x\": 1}" \
    --candidate "bs64tn1={$wd, \"BS\": 64, \"tile_x\": 1}" --candidate "s512={$wd, \"KSPLIT\": 512}" \
    --candidate "bs64tn1s512={$wd, \"BS\": 64, \"tile_x\": 1, \"KSPLIT\": 512}" --candidate "ku16={$wd, \"KU\": 16}" \
    --shapes 1x257x751400,1x300x498338,1x450x332594,1x500x299401,3x500x298210,2x450x331858,1x300x65536,1x1000x150000,1x4096x36000,1x8192x8192,1x4096x4096,4x4096x4096,8x8192x8192,16x4096x4096,1x2048x2048
fi
widerows() { python3 -c "print(','.join(f'{m}x{n}x{k}' for k in (4096, 16384) for n in (1024, 4096, 8192) for m in ($1)))"; }
if part widerows; then
  wd='"variant": "wide", "model": true'
  wr=(--candidate "model={$wd}" --candidate "tn1={$wd, \"tile_x\": 1}" --candidate "ku4={$wd, \"KU\": 4}"
      --candidate "ku16={$wd, \"KU\": 16}" --candidate "tn1ku16={$wd, \"tile_x\": 1, \"KU\": 16}"
      --candidate "bs128={$wd, \"BS\": 128}")
  TAILN=38 step widerows 300 python3 wgmma_lead.py --rounds 3 --json "$out/widerows.json" "${wr[@]}" \
    --shapes "$(widerows '1, 2, 3, 4, 6, 8, 11')"
  TAILN=14 step widerows64 200 python3 wgmma_lead.py --rounds 3 --dtype float64 --json "$out/widerows64.json" \
    "${wr[@]}" --shapes "$(widerows '1, 2, 3')"
fi
if part ninerows; then
  wd='"variant": "wide", "model": true'
  TAILN=14 step ninerows 200 python3 wgmma_lead.py --rounds 3 --json "$out/ninerows.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "bs128={$wd, \"BS\": 128}" \
    --candidate "tn1={$wd, \"tile_x\": 1}" --candidate "bs128ku4={$wd, \"BS\": 128, \"KU\": 4}" \
    --candidate "bs64={$wd, \"BS\": 64}" --shapes "$(widerows '9, 10')"
fi
