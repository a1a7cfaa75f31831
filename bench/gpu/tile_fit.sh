#!/bin/bash
# Which tile fits a C that the tuned tiles pad (device tool, carry [".whl"]): candidates in
# turns beside cuBLAS (wgmma_lead.py) on
#   tall64  a tall float64 C of 20-64 columns: mma's tall 128 x 16 tile, a 128 x 32 one
#           and the 64 x 64 entry, each split 1-8 ways;
#   tall32  a tall float32 C of 32-64 columns in the large class: wgmma's 128 x 128 entry,
#           its 128 x 64 form, xgemm's 64 x 64 entry;
#   shallow float32 with K <= 128: xgemm's entry (auto) against wgmma's tiles;
#   deeper64 float64's narrow tiles with deeper slabs, more copies ahead, other shapes;
#   slabs64 the tall presets' slabs of 8 against 16, at the model's splits;
#   square64 float64's 64 x 64 and 64 x 128 tiles with slabs of 8 or 16 and 2-4 copies ahead;
#   wide64  a wide float64 C: the wide kernel against mma tiles of 16 x 128 and 32 x 128;
#   wide32  a wide float32 C: the wide kernel against mma's and wgmma's tiles;
#   splits32 the float32 wide tiles at the splits around the model's;
#   tests   the routing's and mma's tests on the GPU;
#   fit64   a float64 C of 33-64 columns: the 64 x 64 entry against tiles as wide as C;
#   fit32   a float64 C of 17-32 columns: the tall tiles against 128 x 24;
#   fit56   a float64 C of 49-64 columns: the 64 x 64 entry against 128 x 56 and 128 x 64;
#   wide48  a wide float64 C of 33-48 rows: the 64 x 128 entry against 32 x 128 and 48 x 128;
#   square128 float64's 64 x 128 entry against 8-warp tiles of 96 x 128, 128 x 128, 128 x 64;
#   fit8    a float64 C of 8-12 columns: tallskinny against 128 x 8 and 128 x 16;
#   splits64 float64's 64 x 128 and 64 x 64 tiles at splits around the model's (3000 x 200 x 3000, deep K);
#   narrow32 a float32 C of 17-48 columns: auto against wgmma's 32- and 48-column blocks;
#   narrow96 a float32 C of 65-96 columns: auto against wgmma's 80- and 96-column blocks;
#   wide64few a wide float64 C of 2-6 rows: the wide kernel against mma's 16 x 128 tile.
#   PARTS="tall64 tall32 shallow" bash bench/gpu/tile_fit.sh
source bench/gpu/steps.sh
if part tall64; then
  M='"variant": "mma", "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 1 2 4 8; do c+=(--candidate "t16k$s={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 2, \"KSPLIT\": $s}" \
                           --candidate "t32k$s={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 4, \"KSPLIT\": $s}"); done
  for s in 1 4; do c+=(--candidate "t64k$s={$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"KSPLIT\": $s}"); done
  TAILN=12 step tall64 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/tall64.json" \
    --shapes 4096x20x4096,4096x24x4096,4096x32x4096,4096x48x4096,4096x64x4096,16384x24x1024,16384x32x4096,50000x32x1024 "${c[@]}"
fi
if part deeper64; then  # float64's narrow tiles with deeper slabs, more copies ahead, other shapes
  M='"variant": "mma", "PAD": 4, "WN": 1'
  TAILN=8 step deeper64 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/deeper64.json" \
    --shapes 50000x32x1024:1,16384x32x4096:2,4096x24x4096:8,50000x40x4096:1,8192x40x8192:2,100000x64x256:1 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "t32={$M, \"WM\": 4, \"MT\": 2, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" \
    --candidate "t32ks2={$M, \"WM\": 4, \"MT\": 2, \"NT\": 4, \"KS\": 2, \"ASYNC_STAGES\": 2}" \
    --candidate "t32as4={$M, \"WM\": 4, \"MT\": 2, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 4}" \
    --candidate "t32w2={$M, \"WM\": 2, \"MT\": 4, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" \
    --candidate "m64x32={$M, \"WM\": 2, \"MT\": 2, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" \
    --candidate "m256x32={$M, \"WM\": 4, \"MT\": 4, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 2}" \
    --candidate "m128x64={$M, \"WM\": 4, \"MT\": 2, \"NT\": 8, \"KS\": 1, \"ASYNC_STAGES\": 3}"
fi
if part slabs64; then  # the tall presets' slabs of 8 (3 copied ahead) against 16 (2 ahead), at the model's splits
  M='"variant": "mma", "PAD": 4, "WN": 1, "WM": 4, "MT": 2'
  TAILN=9 step slabs16 200 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/slabs16.json" \
    --shapes 4096x12x4096:8,4096x16x4096:8,16384x16x4096:2,50000x16x1024:1,2048x16x2048:16,256x16x8192:128,100x16x100000:256 \
    --candidate "ks1={$M, \"NT\": 2, \"KS\": 1, \"ASYNC_STAGES\": 3}" --candidate "ks2={$M, \"NT\": 2, \"KS\": 2, \"ASYNC_STAGES\": 2}"
  TAILN=10 step slabs32 200 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/slabs32.json" \
    --shapes 4096x17x4096:8,4096x24x4096:8,4096x32x4096:8,16384x24x1024:2,16384x32x4096:2,50000x32x1024:1,50000x24x1024:1,100000x32x512:1 \
    --candidate "ks1={$M, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" --candidate "ks2={$M, \"NT\": 4, \"KS\": 2, \"ASYNC_STAGES\": 2}"
fi
if part square64; then  # float64's 64 x 64 (deep-K entry) and 64 x 128 (large) tiles: slabs of 8 or 16, copies ahead
  M='"variant": "mma", "PAD": 4'
  T64='"WM": 2, "WN": 2, "MT": 2, "NT": 4'
  TAILN=10 step square64 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/square64.json" \
    --shapes 16384x64x4096:1,50000x40x4096:1,8192x40x8192:2,100000x64x256:1,16384x48x2048:1,4096x64x4096:4,2048x2048x2048:1,4096x4096x4096:1 \
    --candidate "k1a3={$M, $T64, \"KS\": 1, \"ASYNC_STAGES\": 3}" --candidate "k2a2={$M, $T64, \"KS\": 2, \"ASYNC_STAGES\": 2}" \
    --candidate "k1a4={$M, $T64, \"KS\": 1, \"ASYNC_STAGES\": 4}" \
    --candidate "l64x128={$M, \"WM\": 1, \"WN\": 4, \"MT\": 4, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" \
    --candidate "l64x128a2={$M, \"WM\": 1, \"WN\": 4, \"MT\": 4, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 2}"
fi
if part wide64; then  # a wide float64 C (few rows): the wide kernel (auto) against mma tiles of 16 and 32 rows
  M='"variant": "mma", "PAD": 4, "WM": 1, "WN": 4, "NT": 4, "KS": 2, "ASYNC_STAGES": 2'
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 1 2 4 8 16; do c+=(--candidate "r16k$s={$M, \"MT\": 1, \"KSPLIT\": $s}"); done
  for s in 1 4 8; do c+=(--candidate "r32k$s={$M, \"MT\": 2, \"KSPLIT\": $s}"); done
  TAILN=10 step wide64 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/wide64.json" \
    --shapes 8x4096x4096,12x4096x4096,16x4096x4096,24x4096x4096,32x4096x4096,16x16384x4096,16x50000x1024,16x2048x2048 "${c[@]}"
fi
if part wide32; then  # a wide float32 C: the wide kernel (auto) against mma's and wgmma's tiles
  M='"variant": "mma", "PAD": 4, "WM": 1, "WN": 4, "NT": 4, "KS": 2'
  W='"variant": "wgmma", "WN": 64, "WGM": 1, "WGN": 1, "KS": 2, "PAD": 0, "LEAD": 2'
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 4 8; do c+=(--candidate "r16k$s={$M, \"MT\": 1, \"KSPLIT\": $s}" --candidate "r32k$s={$M, \"MT\": 2, \"KSPLIT\": $s}" \
                       --candidate "w64k$s={$W, \"KSPLIT\": $s}"); done
  TAILN=8 step wide32 300 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 2 --json "$out/wide32.json" \
    --shapes 16x4096x4096,24x4096x4096,32x4096x4096,24x16384x4096,32x8192x8192 "${c[@]}"
fi
if part splits32; then  # the float32 wide tiles at the splits around the model's (16 at 4096 x 4096)
  M='"variant": "mma", "PAD": 4, "WM": 1, "WN": 4, "NT": 4, "KS": 2'
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 8 16 32; do c+=(--candidate "r16k$s={$M, \"MT\": 1, \"KSPLIT\": $s}" --candidate "r32k$s={$M, \"MT\": 2, \"KSPLIT\": $s}"); done
  TAILN=6 step splits32 200 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 3 --json "$out/splits32.json" \
    --shapes 16x4096x4096,24x4096x4096,32x4096x4096,32x2048x2048 "${c[@]}"
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
if part tests; then  # the routing and the new tiles' tests on the GPU
  TAILN=6 step tests 240 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_wide.py tests/test_shipped_database.py tests/test_mma.py -k "gpu or shipped or route"
fi
if part fit64; then  # a float64 C of 33-64 columns: the 64 x 64 entry against tiles whose width fits C, each at its model split
  M='"variant": "mma", "PAD": 4, "KSPLIT": "model"'
  T='"WM": 4, "WN": 1, "MT": 2, "KS": 2, "ASYNC_STAGES": 2'
  TAILN=10 step fit64 330 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/fit64.json" \
    --shapes 50000x40x4096,8192x40x8192,100000x36x512,16384x48x2048,4096x48x4096,16384x56x4096,16384x64x4096,4096x64x4096 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "k2a2={$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"KS\": 2, \"ASYNC_STAGES\": 2}" \
    --candidate "t40={$M, $T, \"NT\": 5}" --candidate "t48={$M, $T, \"NT\": 6}" \
    --candidate "s128x64={$M, \"WM\": 4, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" \
    --candidate "h64x48={$M, \"WM\": 2, \"WN\": 1, \"MT\": 2, \"NT\": 6, \"KS\": 2, \"ASYNC_STAGES\": 2}"
fi
if part fit32; then  # a float64 C of 17-32 columns: tall 128 x 16 and 128 x 32 against 128 x 24, each at its model split
  M='"variant": "mma", "PAD": 4, "KSPLIT": "model", "WM": 4, "WN": 1, "MT": 2, "KS": 2, "ASYNC_STAGES": 2'
  TAILN=8 step fit32 240 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/fit32.json" \
    --shapes 4096x20x4096,4096x24x4096,16384x24x1024,50000x24x1024,8192x20x8192,50000x20x4096,100000x24x512,2048x24x2048 \
    --candidate 'auto={"variant": "auto"}' --candidate "t16={$M, \"NT\": 2}" --candidate "t24={$M, \"NT\": 3}" \
    --candidate "t32={$M, \"NT\": 4}"
fi
if part fit56; then  # a float64 C of 49-64 columns: the 64 x 64 entry against 128 x 56 and 128 x 64 tiles (within 48 KiB)
  M='"variant": "mma", "KSPLIT": "model", "WM": 4, "WN": 1, "MT": 2'
  TAILN=8 step fit56 240 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/fit56.json" \
    --shapes 16384x56x4096,50000x56x1024,8192x52x8192,16384x64x4096,50000x64x1024,4096x64x4096 \
    --candidate 'auto={"variant": "auto"}' --candidate "t56={$M, \"NT\": 7, \"PAD\": 4, \"KS\": 2, \"ASYNC_STAGES\": 2}" \
    --candidate "t64a3={$M, \"NT\": 8, \"PAD\": 4, \"KS\": 1, \"ASYNC_STAGES\": 3}" \
    --candidate "t64p0={$M, \"NT\": 8, \"PAD\": 0, \"KS\": 2, \"ASYNC_STAGES\": 2}"
fi
if part wide48; then  # a wide float64 C of 33-48 rows: the 64 x 128 entry against mma's 48 x 128 mirror of the tall tiles
  M='"variant": "mma", "PAD": 4, "KSPLIT": "model", "WM": 1, "WN": 4, "NT": 4, "KS": 2, "ASYNC_STAGES": 2'
  TAILN=8 step wide48 240 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/wide48.json" \
    --shapes 40x4096x4096,48x4096x4096,40x50000x1024,48x16384x4096,36x8192x8192,40x2048x2048 \
    --candidate 'auto={"variant": "auto"}' --candidate "w32={$M, \"MT\": 2}" --candidate "w48={$M, \"MT\": 3}"
fi
if part square128; then  # float64's large entry (64 x 128, 128 work-items) against 8-warp tiles of 96 x 128 and 128 x 128
  M='"variant": "mma", "KS": 1'
  TAILN=6 step square128 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --json "$out/square128.json" \
    --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,4097x4097x4097 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "sq128a2={$M, \"WM\": 2, \"WN\": 4, \"MT\": 4, \"NT\": 4, \"PAD\": 4, \"ASYNC_STAGES\": 2}" \
    --candidate "sq128p0a3={$M, \"WM\": 2, \"WN\": 4, \"MT\": 4, \"NT\": 4, \"PAD\": 0, \"ASYNC_STAGES\": 3}" \
    --candidate "r96a3={$M, \"WM\": 2, \"WN\": 4, \"MT\": 3, \"NT\": 4, \"PAD\": 4, \"ASYNC_STAGES\": 3}" \
    --candidate "w128x64a3={$M, \"WM\": 2, \"WN\": 4, \"MT\": 4, \"NT\": 2, \"PAD\": 4, \"ASYNC_STAGES\": 3}"
fi
if part fit8; then  # a float64 C of 8-12 columns: tallskinny (auto) against mma's 128 x 8 and 128 x 16 tiles
  M='"variant": "mma", "PAD": 4, "KSPLIT": "model", "WM": 4, "WN": 1, "MT": 2, "KS": 2, "ASYNC_STAGES": 2'
  TAILN=8 step fit8 240 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/fit8.json" \
    --shapes 4096x8x4096,4096x10x4096,16384x8x4096,50000x10x1024,8192x11x8192,4096x12x4096 \
    --candidate 'auto={"variant": "auto"}' --candidate "t8={$M, \"NT\": 1}" --candidate "t16={$M, \"NT\": 2}"
fi
if part splits64; then  # float64's medium C and deep K: the 64 x 128 entry and the 64 x 64 tile at splits around the model's
  L='"variant": "mma", "WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
  S='"variant": "mma", "WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 4'
  c=(--candidate 'auto={"variant": "auto"}')
  for k in 2 4 8 16 32 64; do c+=(--candidate "l$k={$L, \"KSPLIT\": $k}"); done
  for k in 4 8 16 32; do c+=(--candidate "s$k={$S, \"KSPLIT\": $k}"); done
  TAILN=4 step splits64 240 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/splits64.json" \
    --shapes 3000x200x3000,768x768x16384,1024x1024x16384 "${c[@]}"
fi
if part narrow32; then  # a float32 C of 17-48 columns: auto (tallskinny to 24 columns, wgmma's 128 x 64 after) against wgmma's 32- and 48-column blocks
  W='"variant": "wgmma", "PAD": 0, "LEAD": 2, "KSPLIT": "model", "WGN": 1'
  TAILN=10 step narrow32 300 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 2 --json "$out/narrow32.json" \
    --shapes 50000x32x1024,4096x32x4096,16384x32x4096,8192x28x8192,8192x40x8192,50000x40x4096,16384x48x2048,8192x24x8192,50000x20x4096 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "w32m2={$W, \"WN\": 32, \"WGM\": 2, \"KS\": 2}" --candidate "w32m1={$W, \"WN\": 32, \"WGM\": 1, \"KS\": 2}" \
    --candidate "w48m1={$W, \"WN\": 48, \"WGM\": 1, \"KS\": 2}" --candidate "w64m2={$W, \"WN\": 64, \"WGM\": 2, \"KS\": 2}" \
    --candidate "w64m1={$W, \"WN\": 64, \"WGM\": 1, \"KS\": 2}"
fi
if part narrow96; then  # a float32 C of 65-96 columns: auto (wgmma's 128 x 128) against wgmma's 80- and 96-column blocks
  W='"variant": "wgmma", "PAD": 0, "LEAD": 2, "KSPLIT": "model", "WGN": 1, "KS": 2'
  TAILN=8 step narrow96 300 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 2 --json "$out/narrow96.json" \
    --shapes 16384x80x4096,8192x96x8192,50000x72x1024,4096x96x4096,16384x88x2048,8192x80x8192 \
    --candidate 'auto={"variant": "auto"}' \
    --candidate "w96m2={$W, \"WN\": 96, \"WGM\": 2}" --candidate "w96m1={$W, \"WN\": 96, \"WGM\": 1}" \
    --candidate "w80m1={$W, \"WN\": 80, \"WGM\": 1}" --candidate "w64m2={$W, \"WN\": 64, \"WGM\": 2}"
fi
if part wide64few; then  # a wide float64 C of fewer than 8 rows: the wide kernel (auto) against mma's 16 x 128 tile
  M='"variant": "mma", "PAD": 4, "WM": 1, "WN": 4, "MT": 1, "NT": 4, "KS": 2, "ASYNC_STAGES": 2'
  c=(--candidate 'auto={"variant": "auto"}' --candidate "r16={$M, \"KSPLIT\": \"model\"}")
  for s in 8 16; do c+=(--candidate "r16k$s={$M, \"KSPLIT\": $s}"); done
  TAILN=8 step wide64few 240 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 2 --json "$out/wide64few.json" \
    --shapes ${FEW:-2x4096x4096,4x4096x4096,6x4096x4096,4x16384x4096,6x50000x1024,4x2048x2048} "${c[@]}"
fi
cd "$out" && tar czf tile_fit.tgz --remove-files ./*.txt ./*.json && ls
