#!/bin/bash
# Which tile fits a C that the tuned tiles pad (device tool, carry [".whl"]): candidates in
# turns beside cuBLAS (wgmma_lead.py) on
#   tall64  a tall float64 C of 20-64 columns: mma's tall 128 x 16 tile, a 128 x 32 one
#           and the 64 x 64 entry, each split 1-8 ways;
#   tall32  a tall float32 C of 32-64 columns in the large class: wgmma's 128 x 128 entry,
#           its 128 x 64 form, xgemm's 64 x 64 entry;
#   shallow float32 with K <= 128: xgemm's entry (auto) against wgmma's tiles.
#   PARTS="tall64 tall32 shallow" bash bench/gpu/tile_fit.sh
source bench/gpu/steps.sh
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }
if part tall64; then
  M='"variant": "mma", "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 1 2 4 8; do c+=(--candidate "t16k$s={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 2, \"KSPLIT\": $s}" \
                           --candidate "t32k$s={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 4, \"KSPLIT\": $s}"); done
  for s in 1 4; do c+=(--candidate "t64k$s={$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"KSPLIT\": $s}"); done
  TAILN=12 step tall64 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/tall64.json" \
    --shapes 4096x20x4096,4096x24x4096,4096x32x4096,4096x48x4096,4096x64x4096,16384x24x1024,16384x32x4096,50000x32x1024 "${c[@]}"
fi
if part tall32; then
  W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "WGN": 1'
  X='"variant": "xgemm", "MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8'
  TAILN=8 step tall32 200 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 2 --json "$out/tall32.json" \
    --shapes 50000x32x1024,100000x64x256,16384x48x2048,50000x40x4096 --candidate 'auto={"variant": "auto"}' \
    --candidate "w128={$W, \"WN\": 128, \"WGM\": 2}" --candidate "w64={$W, \"WN\": 64, \"WGM\": 2}" \
    --candidate "w64m1={$W, \"WN\": 64, \"WGM\": 1}" --candidate "x64={$X}"
fi
if part shallow; then
  W='"variant": "wgmma", "PAD": 0, "WGN": 1'
  TAILN=8 step shallow 200 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 2 --json "$out/shallow.json" \
    --shapes 4096x4096x1,4096x4096x16,4096x4096x64,4096x4096x128,2000x2000x64,8192x8192x32 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "w128k2={$W, \"WN\": 128, \"WGM\": 2, \"KS\": 2, \"LEAD\": 2}" \
    --candidate "w128k1={$W, \"WN\": 128, \"WGM\": 2, \"KS\": 1, \"LEAD\": 1}" \
    --candidate "w64k1={$W, \"WN\": 64, \"WGM\": 2, \"KS\": 1, \"LEAD\": 1}"
fi
cd "$out" && tar czf tile_fit.tgz --remove-files ./*.txt ./*.json && ls
