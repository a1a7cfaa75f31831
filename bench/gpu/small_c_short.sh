#!/usr/bin/env bash
# Device tool, carry [".whl"]: a C of 64-4096 values over a K of 4096-262144 on a GPU,
# where auto's split-K tiles (two launches: the tiles, then reduce.cl's sum) and
# tallskinny's tiles (one launch, the last group of a tile sums it) both run; and a third
# random survey of auto beside cuBLAS. 2026-11-27's after64 had tallskinny 1.25-1.75x
# ahead of auto's float64 mma tiles at 2 x 64 and 16 x 64 over K = 4096, and 1.39x at
# 64 x 10 x 200000, but 0.73-0.89x at the transposed shapes.
#   h200     on an H200 only: bench/gpu/h200_confirm.sh (issue 9's H200 figures)
#   small32  float32: auto beside tallskinny's own model, in turns (wgmma_lead.py, 3 rounds)
#   small64  float64: the same
#   edge32   float32: the same where small32/small64 left the bounds open: C of 800-4096
#            values and K = 4096-131072, C of 1-3 rows and 128-1024 columns, and a small
#            C over a K of 1024-3000 (a size class, not deep-k)
#   edge64   float64: the same
#   confirm  the rule taken from them (shapes.GPU_SHORT_*): auto after against auto before
#            (build/before, carried), whole processes in turns beside tallskinny's model
#            (steps.sh's turns), float32 and float64, on shapes of the grids and past them
#   odd      float64 (and float32) C of unaligned rows at K = 7-64, where the survey had
#            3565 x 3591 x 8 at 47% of cuBLAS in mma's tile: auto beside vec's shallow
#            tiles of 4 and 8 rows by one 16-byte vector
#   deeper   odd columns at K = 16-48: auto beside vec's 8 (float32) and 4 (float64) rows
#   beyond   the two rules (this and the odd columns' vec) in turns as in confirm, on C
#            outside the grids: 5-32 rows by 100-1000 columns, and odd columns at K = 8-15
#   wideish  float32 C of 17-64 rows and 1000-39000 columns over K = 625-65536 (the
#            survey's 32 x 2282 x 9652 and 36 x 1427 x 40812 at 78% of cuBLAS, in mma's
#            32 x 128 and xgemm's 64 x 64): auto beside wgmma's 64 x 64, 64 x 128 and
#            128 x 128 tiles, xgemm's 64 x 64, mma's 32 x 128 (each split by the model)
#            and wide's own model
#   square64 wgmma's 64 x 64 tile (a preset now, winning ties with xgemm's): auto beside
#            the tiles it replaced (xgemm's 64 x 64, wgmma's 128 x 128 and 64 x 32, split
#            by the model) on C whose route it changed
#   sqturns  the 64 x 64 rule in turns of whole processes (build/before: the tree before
#            it), beside wgmma's 64 x 64 split by the model as the control
#   final    the GPU tests of the changed paths (sharded_tests.sh) and bench/fuzz_auto.py
#            (seeds $SEED, 9)
#   survey   bench/gpu/survey.sh's survey, seeds $SEED and $SEED + 1 (default 61)
#   OUT=dir [PARTS="h200 small32 small64 edge32 edge64 confirm odd deeper beyond wideish square64 sqturns final survey"] [CASES=24] bash bench/gpu/small_c_short.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part h200 && grep -q H200 "$out/gpu.txt"; then
  OUT=$out/h200 bash bench/gpu/h200_confirm.sh
fi
SHAPES=""
for k in 4096 16384 65536 262144; do
  for c in 1x64 2x64 8x64 16x64 64x16 64x10 10x64 49x13 13x49 24x30 32x32 64x64; do
    SHAPES="$SHAPES,${c}x$k"
  done
done
SHAPES=${SHAPES#,}
EDGE=""
for k in 4096 8192 16384 32768 65536 131072; do
  for c in 20x40 30x30 40x40 32x48 64x32 32x64 48x48 64x64; do EDGE="$EDGE,${c}x$k"; done
done
for k in 4096 16384 65536 131072; do
  for c in 1x300 1x500 2x200 2x500 1x1024 3x300; do EDGE="$EDGE,${c}x$k"; done
done
EDGE=${EDGE#,},32x32x2048,16x64x2048,64x16x1024,24x30x3000,64x64x2048
T='"variant": "tallskinny", "model": true'
# vec's shallow tiles, wgmma's tiles and xgemm's 64 x 64 (the small class's entry), each
# split by the model: the candidates' common keys
V='"variant": "vec", "wg_y": 2, "wg_x": 64, "PACKED": 0, "KSPLIT": 1'
W='"variant": "wgmma", "WGN": 1, "KS": 2, "PAD": 0, "LEAD": 2, "KSPLIT": "model"'
X='"variant": "xgemm", "MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8, "ASYNC_STAGES": 0, "SWIZZLE": 1, "KSPLIT": "model"'
(cd bench/gpu
for grid in small edge; do
  shapes=$SHAPES; [ "$grid" = edge ] && shapes=$EDGE
  for dtype in float32 float64; do
    name=$grid${dtype#float}
    part "$name" || continue
    TAILN=80 step "$name" 250 python3 wgmma_lead.py --dtype "$dtype" --rounds 3 \
      --json "$out/$name.json" --candidate 'auto={"variant": "auto"}' --candidate "ts={$T}" \
      --shapes "$shapes"
  done
done)
if part confirm; then
  C="20x40x8192,64x64x4096,32x32x2048,1x300x4096,2x500x16384,64x10x16384,48x48x8192"
  C="$C,8x500x1024,300x10x2000,100x40x1024,128x32x4096,200x20x8192,16x256x4096,40x100x1024"
  C="$C,64x64x1024,50x80x3000,100x40x16384,400x10x1500,64x64x32768,32x32x262144"
  turns confirm32 float32 "$C" "$T"
  turns confirm64 float64 "$C" "$T"
fi
if part odd; then
  (cd bench/gpu
  TAILN=12 step odd64 200 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/odd64.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "v4={$V, \"tile_y\": 4, \"tile_x\": 2, \"vw\": 2}" \
    --candidate "v8={$V, \"tile_y\": 8, \"tile_x\": 2, \"vw\": 2}" \
    --shapes 3565x3591x8,3001x3001x7,2001x2001x10,2000x2001x12,4097x1025x16,1023x3361x27,3000x3001x32,2049x4097x64,3584x3584x8,2048x2048x16
  TAILN=8 step odd32 150 python3 wgmma_lead.py --rounds 3 --json "$out/odd32.json" \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "v4={$V, \"tile_y\": 4, \"tile_x\": 4, \"vw\": 4}" \
    --candidate "v8={$V, \"tile_y\": 8, \"tile_x\": 4, \"vw\": 4}" \
    --shapes 3565x3591x8,2000x2001x12,4097x1025x16,1023x3361x27,3000x3001x32,3584x3584x8)
fi
if part deeper; then
  D=""
  for k in 16 20 24 28 32 40 48; do D="$D,3565x3591x$k,1001x3001x$k,4097x1025x$k"; done
  (cd bench/gpu
  TAILN=22 step deeper32 200 python3 wgmma_lead.py --rounds 3 --json "$out/deeper32.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "v8={$V, \"tile_y\": 8, \"tile_x\": 4, \"vw\": 4}" \
    --shapes "${D#,}"
  TAILN=22 step deeper64 200 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/deeper64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "v4={$V, \"tile_y\": 4, \"tile_x\": 2, \"vw\": 2}" \
    --shapes "${D#,}")
fi
if part beyond; then
  B="24x160x4096,12x300x16384,5x800x4096,32x100x8192,16x250x4096,3x1000x4096,10x400x16384"
  B="$B,1x1000x16384,100x30x2048,1001x3001x9,5000x777x13,2047x2049x15,999x4001x11,3000x3000x12"
  turns beyond32 float32 "$B" "$T"
  turns beyond64 float64 "$B" "$T"
fi
if part wideish; then
  M='"variant": "mma", "WM": 1, "WN": 4, "MT": 2, "NT": 4, "KS": 2, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 0, "KSPLIT": "model"'
  (cd bench/gpu
  TAILN=12 step wideish 300 python3 wgmma_lead.py --rounds 3 --json "$out/wideish.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "w64x64={$W, \"WN\": 64, \"WGM\": 1}" \
    --candidate "w64x128={$W, \"WN\": 128, \"WGM\": 1}" --candidate "w128={$W, \"WN\": 128, \"WGM\": 2}" \
    --candidate "x64={$X}" --candidate "m32={$M}" --candidate 'wide={"variant": "wide", "model": true}' \
    --shapes 32x2282x9652,36x1427x40812,32x38916x625,24x3000x20000,48x2000x16384,17x4096x8192,64x1500x30000,40x8000x4096,20x1000x65536,33x5000x5000)
fi
if part square64; then
  (cd bench/gpu
  TAILN=28 step square64 400 python3 wgmma_lead.py --rounds 3 --json "$out/square64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "x64={$X}" \
    --candidate "w128={$W, \"WN\": 128, \"WGM\": 2}" --candidate "w64x32={$W, \"WN\": 32, \"WGM\": 1}" \
    --shapes 24x48x65536,32x64x2097152,33x1000x16384,40x200x4096,48x8192x65536,64x64x65536,64x64x2097152,64x500x4096,64x128x2097152,33x33x2097152,48x2048x16384,64x100x65536,1x100x512,16x500x2048,33x4096x2048,48x8192x512,64x1000x2048,40x200x512,64x65x2048,1x33x512,16x64x512,32x500x2048,24x200x2048,48x48x512,64x64x512)
fi
if part sqturns; then
  turns sqturns float32 36x1427x40812,33x5000x5000,64x1500x30000,48x2000x16384,40x8000x4096,24x48x65536,40x200x4096,64x64x65536,64x64x2097152,32x64x2097152 \
    "$W, \"WN\": 64, \"WGM\": 1"
fi
if part final; then
  TAILN=8 SHARDS=8 step tests 300 bash bench/gpu/sharded_tests.sh tests/test_fast_variants.py \
    tests/test_shipped_database.py tests/test_tallskinny.py tests/test_wgmma.py
  TAILN=3 step fuzz 200 python3 bench/fuzz_auto.py --device gpu --cases 160 --seed "${SEED:-8}" \
    --json "$out/fuzz.json"
  TAILN=3 step fuzz9 200 python3 bench/fuzz_auto.py --device gpu --cases 160 --seed 9 \
    --json "$out/fuzz9.json"
fi
if part survey; then
  OUT=$out SEED=${SEED:-61} CASES=${CASES:-24} SURVEY_S=${SURVEY_S:-150} \
    DRAW="--max-flops 1e12 --max-bytes 3e9 --scale 5" bash bench/gpu/survey.sh
fi
