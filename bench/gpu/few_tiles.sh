#!/usr/bin/env bash
# Device tool, carry [".whl"]: C of the ordinary classes (K below the deep-K class's 4096)
# that the entries' large tensor-core tiles cover in few tiles, beside the same families'
# smaller tiles, each split by auto's model, in turns beside cuBLAS (wgmma_lead.py,
# 2 rounds). After the H200 survey of 2026-11-27 (626 x 1139 x 221 float32 1.51x faster
# in wgmma's 128 x 64 than in the entry's 128 x 128; float64 725 x 714 x 159 1.58x in
# mma's 64 x 64 than in the entry's 64 x 128; bench/results/2026-11-27-h200-few-tiles,
# which holds every part's output).
#   grid32  auto (wgmma 128 x 128) beside wgmma's 128 x 64, 64 x 128 and 64 x 64
#   grid64  auto (mma 64 x 128) beside mma's 64 x 64 (the deep-K entry), 64 x 96 (the
#           medium preset) and 128 x 64
#   small32 C of the small class (every side below 512), whose float32 entry is xgemm's
#           64 x 64: auto beside wgmma's 64 x 64 (wgmma.SQUARE_64) and 128 x 64
#   half32  float32 C of 16-121 tiles of 128 x 128 at K = 64-1024: auto beside wgmma's
#           128 x 64 and 64 x 128
#   half64  float64 C of 16-160 tiles of mma's 64 x 128 at K = 64-1024: auto beside
#           mma's 64 x 64 and 128 x 64
#   turns32 the rules taken (choice.SQUARE_64 for the small class, SHORT_SPLIT_K, the H200's
#   turns64 shallow-k entry of 128 x 64) against the tree before (build/before, carried),
#           whole processes in turns (steps.sh's turns), wgmma's 128 x 64 or mma's 64 x 64
#           the control
#   waves64 the rule taken after (choice.WAVE_HALF_FAMILIES: mma's 64 x 64 where it covers
#           C in as few waves as the entry's 64 x 128, K whole) against the tree before,
#           in turns as above
#   final   the GPU tests of the changed routes and tiles (sharded_tests.sh), survey.sh's
#           seed 73 again, bench/fuzz_auto.py (seed $FUZZ_SEED, default 11, 120 cases)
#   OUT=dir [PARTS="grid32 grid64 small32 half32 half64 turns32 turns64 waves64 final"] [SHAPES=...] \
#     bash bench/gpu/few_tiles.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
grid() {  # the shapes M x N x K of the sides "MxN ..." $1 and the depths "K ..." $2
  local k mn list=; for k in $2; do for mn in $1; do list+="${mn}x$k,"; done; done; echo "${list%,}"; }
sides="384x384 640x640 896x896 1152x1152 1408x1408 1664x1664 2048x2048 2560x2560 384x2048
  2048x384 640x1408 1408x640 896x2560 2560x896"
shapes=${SHAPES:-$(grid "$sides" "48 160 512 1536 3500")}
cd bench/gpu
W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "KSPLIT": "model"'
if part grid32; then
  TAILN=4 step grid32 290 python3 wgmma_lead.py --rounds 2 --json "$out/grid32.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "w128x64={$W, \"WN\": 64, \"WGM\": 2, \"WGN\": 1}" \
    --candidate "w64x128={$W, \"WN\": 128, \"WGM\": 1, \"WGN\": 1}" \
    --candidate "w64x64={$W, \"WN\": 64, \"WGM\": 1, \"WGN\": 1}" --shapes "$shapes"
fi
M='"variant": "mma", "KS": 1, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "KSPLIT": "model", "WM": 2, "WN": 2'
if part grid64; then
  TAILN=4 step grid64 290 python3 wgmma_lead.py --dtype float64 --rounds 2 --json "$out/grid64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "m64x64={$M, \"MT\": 2, \"NT\": 4, \"ASYNC_STAGES\": 4}" \
    --candidate "m64x96={$M, \"MT\": 2, \"NT\": 6, \"ASYNC_STAGES\": 3}" \
    --candidate "m128x64={$M, \"MT\": 4, \"NT\": 4, \"ASYNC_STAGES\": 3}" --shapes "$shapes"
fi
if part small32; then
  TAILN=4 step small32 290 python3 wgmma_lead.py --rounds 2 --json "$out/small32.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "w64x64={$W, \"WN\": 64, \"WGM\": 1, \"WGN\": 1}" \
    --candidate "w128x64={$W, \"WN\": 64, \"WGM\": 2, \"WGN\": 1}" \
    --shapes "$(grid "96x96 160x448 256x256 320x200 384x511 448x448 511x511 200x320" "24 64 200 400 511")"
fi
half="512x512 768x768 1024x640 1024x1024 1280x768 700x1500 1100x1100 1300x1300 600x2500"
if part half32; then
  TAILN=4 step half32 290 python3 wgmma_lead.py --rounds 2 --json "$out/half32.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "w128x64={$W, \"WN\": 64, \"WGM\": 2, \"WGN\": 1}" \
    --candidate "w64x128={$W, \"WN\": 128, \"WGM\": 1, \"WGN\": 1}" \
    --shapes "$(grid "$half" "64 96 256 384 768 1024")"
fi
if part half64; then
  TAILN=4 step half64 290 python3 wgmma_lead.py --dtype float64 --rounds 2 --json "$out/half64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "m64x64={$M, \"MT\": 2, \"NT\": 4, \"ASYNC_STAGES\": 4}" \
    --candidate "m128x64={$M, \"MT\": 4, \"NT\": 4, \"ASYNC_STAGES\": 3}" \
    --shapes "$(grid "$half 896x2560 2560x896" "64 96 256 384 768 1024")"
fi
cd ../..
if part turns32; then
  turns t32 float32 "96x96x24,256x256x200,448x448x64,320x200x400,511x511x511,200x320x511,\
100x100x100,384x384x48,40x300x300,896x896x160,640x1408x160,2048x384x160,1024x1024x256,\
1280x768x384,626x1139x221,1664x1664x512,896x2560x512,1024x1024x768,512x512x64,768x768x96,\
2048x2048x48,4096x4096x128,8192x8192x64,4498x1634x23,1300x1300x96,512x512x128" \
    "$W, \"WN\": 64, \"WGM\": 2, \"WGN\": 1"
fi
if part turns64; then
  turns t64 float64 "896x896x160,768x768x256,512x512x64,1024x640x96,700x1500x384,725x714x159,\
1280x768x384,384x2048x512,640x640x512,100x100x100,1024x1024x768,300x300x300,4821x1619x42" \
    "$M, \"MT\": 2, \"NT\": 4, \"ASYNC_STAGES\": 4"
fi
if part waves64; then
  turns w64 float64 "896x2560x1024,2560x896x3500,896x2560x96,1152x1152x1536,1152x1152x48,\
1024x1024x64,1100x1100x256,640x1408x48,1664x1664x512,1280x768x64,1300x1300x256,1408x1408x512,\
2048x2048x1536,600x2500x384,4096x4096x4096" "$M, \"MT\": 2, \"NT\": 4, \"ASYNC_STAGES\": 4"
fi
if part final; then
  OUT=$out/tests SHARDS=8 timeout 320 bash bench/gpu/sharded_tests.sh tests/test_shipped_database.py \
    tests/test_wgmma.py tests/test_mma.py
  OUT=$out/survey SEED=73 SURVEY_S=100 bash bench/gpu/survey.sh
  TAILN=3 step "fuzz_${FUZZ_SEED:-11}" 140 python3 bench/fuzz_auto.py --device gpu --cases 120 \
    --seed "${FUZZ_SEED:-11}" --json "$out/fuzz_${FUZZ_SEED:-11}.json"
fi
