#!/bin/bash
# float64 across shapes on the GPU (device tool, carry [".whl"]): mma's KSPLIT and tiles
# on the shapes of few tiles, tallskinny's and wide's tiles, groups and loads with
# doubles' registers, and the kernels for a shallow K, each beside auto's choice and
# cuBLAS (DGEMM), in turns (wgmma_lead.py). PARTS picks the parts (default: all).
#   source .whl/setup.sh && bash bench/gpu/f64_routes.sh
#   PARTS="tiles wide" bash bench/gpu/f64_routes.sh
# DRY_SHAPES=64x64x256 DEVICE=cpu ROUNDS=1: every candidate once on a small shape (a check)
source bench/gpu/steps.sh
cd bench/gpu
MMA='"variant": "mma", "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
E="$MMA, \"WM\": 1, \"WN\": 4, \"MT\": 4, \"NT\": 4"   # the shipped large-class tile, 64 x 128
T128x64="$MMA, \"WM\": 2, \"WN\": 2, \"MT\": 4, \"NT\": 4"
T64x64="$MMA, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4"
T128x16="$MMA, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 2"
lead() { local name=$1 limit=$2 shapes=$3; shift 3
         TAILN=${TAILN:-12} step "$name" "$limit" python3 wgmma_lead.py --dtype float64 \
           --rounds "${ROUNDS:-3}" --device "${DEVICE:-gpu}" --shapes "${DRY_SHAPES:-$shapes}" \
           --json "$out/$name.json" --candidate 'auto={"variant": "auto"}' "$@"; }
splits() { local tile=$1; shift; for s in "$@"; do echo "--candidate"; echo "k$s={$tile, \"KSPLIT\": $s}"; done; }

part tests && [ -z "${DRY_SHAPES:-}" ] && step pytest_mma 200 python3 -m pytest -q -x ../../tests/test_mma.py -k "gpu"
if part split; then
  mapfile -t c < <(splits "$E" 1 2 4 8 16)
  lead split 150 1024x1024x16384,2048x1024x16384,16384x64x4096,48x3000x2000,33x4096x1000,3000x200x3000 "${c[@]}"
  mapfile -t c < <(splits "$E" 64 128 256 512)
  lead split_deep 60 64x64x65536 "${c[@]}" \
    --candidate 'xgemm16={"variant": "xgemm", "MWG": 16, "NWG": 16, "KWG": 64, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 2, "KUNROLL": 16, "WARPN": 8, "KSPLIT": 128}'
fi
if part tiles; then  # mma's tiles narrower than the entry's, for C of 16-200 columns
  lead tiles_64 120 16384x64x4096,3000x200x3000 --candidate "e={$E}" --candidate "e2={$E, \"KSPLIT\": 2}" \
    --candidate "t128x64={$T128x64}" --candidate "t128x64k2={$T128x64, \"KSPLIT\": 2}" \
    --candidate "t64x64={$T64x64}" --candidate "t64x64k2={$T64x64, \"KSPLIT\": 2}"
  T='"variant": "tallskinny", "BS": 64, "tile_x": 16, "REDUCE": 1, "FUSE": 1, "tile_y": 4, "KU": 2'
  lead tiles_16 120 4096x16x4096,16384x16x4096 --candidate "t128x16={$T128x16}" \
    --candidate "t128x16k2={$T128x16, \"KSPLIT\": 2}" --candidate "t128x16k4={$T128x16, \"KSPLIT\": 4}" \
    --candidate "t128x16k8={$T128x16, \"KSPLIT\": 8}" --candidate "ts_g1={$T, \"GS\": 1}" \
    --candidate "ts_g2={$T, \"GS\": 2}" --candidate "ts_g4={$T, \"GS\": 4}" \
    --candidate "ts_y2={$T, \"GS\": 1, \"tile_y\": 2}"
fi
if part deep64; then  # the shipped deep-K tile (64 x 64) at the model's split and beside it
  lead deep64 90 16384x64x4096,64x64x65536 --candidate "t64x64={$T64x64}" \
    --candidate "t64x64k2={$T64x64, \"KSPLIT\": 2}" --candidate "t64x64k4={$T64x64, \"KSPLIT\": 4}" \
    --candidate "t128x64k2={$T128x64, \"KSPLIT\": 2}" --candidate "e={$E}"
fi
if part tall; then
  T='"variant": "tallskinny", "GS": 1, "BS": 64, "tile_x": 16, "REDUCE": 1, "FUSE": 1'
  lead tall 90 4096x16x4096,16384x16x4096 --candidate "y8k4={$T, \"tile_y\": 8, \"KU\": 4}" \
    --candidate "y8k1={$T, \"tile_y\": 8, \"KU\": 1}" --candidate "y4k2={$T, \"tile_y\": 4, \"KU\": 2}" \
    --candidate "y4k1={$T, \"tile_y\": 4, \"KU\": 1}" --candidate "y2k4={$T, \"tile_y\": 2, \"KU\": 4}" \
    --candidate "y4k2b128={$T, \"tile_y\": 4, \"KU\": 2, \"BS\": 128}"
  T8='"variant": "tallskinny", "GS": 1, "BS": 64, "tile_x": 8, "REDUCE": 1, "FUSE": 1'
  lead tall8 60 8192x8x8192,50000x8x1024 --candidate "y8k2={$T8, \"tile_y\": 8, \"KU\": 2}" \
    --candidate "y8k1={$T8, \"tile_y\": 8, \"KU\": 1}" --candidate "y4k2={$T8, \"tile_y\": 4, \"KU\": 2}" \
    --candidate "y8k2b128={$T8, \"tile_y\": 8, \"KU\": 2, \"BS\": 128}"
  S='"variant": "tallskinny", "tile_y": 8, "tile_x": 8, "REDUCE": 1, "FUSE": 1'
  lead ts8 60 8x8x4194304,8x8x33554432 --candidate "g64b512={$S, \"GS\": 64, \"BS\": 512, \"KU\": 1}" \
    --candidate "g132b256={$S, \"GS\": 132, \"BS\": 256, \"KU\": 1}" \
    --candidate "g132b512={$S, \"GS\": 132, \"BS\": 512, \"KU\": 1}" \
    --candidate "g264b256={$S, \"GS\": 264, \"BS\": 256, \"KU\": 1}" \
    --candidate "g132b256k2={$S, \"GS\": 132, \"BS\": 256, \"KU\": 2}"
  lead ts16 60 16x16x4194304 --candidate "g16b512k2={$S, \"GS\": 16, \"BS\": 512, \"KU\": 2}" \
    --candidate "g32b256k2={$S, \"GS\": 32, \"BS\": 256, \"KU\": 2}" \
    --candidate "g33b256k1={$S, \"GS\": 33, \"BS\": 256, \"KU\": 1}" \
    --candidate "g66b128k1={$S, \"GS\": 66, \"BS\": 128, \"KU\": 1}"
fi
if part wide; then  # auto's KSPLIT for each shape (64, 32, 32), the loads and rows varied
  W='"variant": "wide", "BS": 256, "tile_x": 2, "BY_COLUMN": 0'
  for shape_split in 16x4096x4096:64 8x8192x8192:32 1x8192x8192:32 16x8192x8192:32; do
    shape=${shape_split%:*} ks=${shape_split#*:} rows=${shape%%x*}
    lead "wide_$shape" 60 "$shape" --candidate "ku8={$W, \"tile_y\": $rows, \"KU\": 8, \"KSPLIT\": $ks}" \
      --candidate "ku4={$W, \"tile_y\": $rows, \"KU\": 4, \"KSPLIT\": $ks}" \
      --candidate "ku2={$W, \"tile_y\": $rows, \"KU\": 2, \"KSPLIT\": $ks}" \
      --candidate "ku4x1={$W, \"tile_y\": $rows, \"KU\": 4, \"tile_x\": 1, \"KSPLIT\": $ks}" \
      --candidate "ku4s2={$W, \"tile_y\": $rows, \"KU\": 4, \"KSPLIT\": $((ks * 2))}" \
      --candidate "ku8y8={$W, \"tile_y\": $(( rows > 8 ? 8 : rows )), \"KU\": 8, \"KSPLIT\": $ks}"
  done
fi
if part shallow; then
  X='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 8, "MDIMC": 16, "NDIMC": 16, "VW": 2, "VWM": 2, "VWN": 2, "KUNROLL": 8, "WARPN": 16'
  lead shallow 120 4096x4096x1,4096x4096x16,4096x4096x32,4096x4096x48,2000x2000x32,2000x2000x64,4096x4096x128 \
    --candidate "mma={$E}" --candidate "xgemm128={$X}" --candidate "mma64={$T64x64}"
fi
cd "$out" && tar czf f64_routes.tgz --remove-files ./*.txt ./*.json && ls
