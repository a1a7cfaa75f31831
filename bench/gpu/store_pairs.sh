#!/bin/bash
# The tensor-core kernels' stores of C in pairs (kernels_cl/store_pairs.h) and float64's
# tall C on mma's tall tile, against the code before them (device tool, carry
# [".whl", "build/before"]; build/before holds the earlier commit's portgemm/ and
# kernels_cl/: `git archive BASE portgemm kernels_cl | tar -x -C build/before`).
# Before and after run as whole processes in turns, each its candidates in turns beside
# cuBLAS (wgmma_lead.py), xgemm's unchanged kernel the control between processes.
#   PARTS="tests f64" bash bench/gpu/store_pairs.sh;  PARTS="f32 tall" ...;  PARTS=split ...
# (split: auto's split-K choice beside the splits around it; no build/before needed).
# Tables: python3 bench/gpu/turns_table.py FOLDER f64 (and f32); the record:
# bench/results/2026-11-26-h100-store-pairs
source bench/gpu/steps.sh
X64='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 8, "MDIMC": 16, "NDIMC": 16, "VW": 2, "VWM": 2, "VWN": 2, "KUNROLL": 8, "WARPN": 16'
X32='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 16, "MDIMC": 16, "NDIMC": 16, "VW": 4, "VWM": 4, "VWN": 2, "KUNROLL": 16, "WARPN": 16'
F64=4096x4096x1,4096x4096x16,4096x4096x128,2000x2000x64,512x512x512,1024x1024x1024,4096x4096x4096,16384x64x4096,1024x1024x16384,48x3000x2000
TALL=4096x8x4096,4096x12x4096,4096x16x4096,4096x24x4096,16384x16x4096,16384x24x1024,50000x16x1024,2048x16x2048,600x16x600,256x16x8192,100x16x100000
F32=4096x4096x16,4096x4096x128,2000x2000x64,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,1024x1024x16384,768x768x16384
part tests && step tests 300 python3 -m pytest -q -x tests/test_mma.py tests/test_wgmma.py -k gpu
part f64 && turns f64 float64 "$F64,$TALL" "$X64"
part f32 && turns f32 float32 "$F32" "$X32"
if part tall; then  # mma's tall tile split 2-32 ways, and 64 x 16 / 256 x 16 (2 stages: 3 pass 48 KiB) tiles
  M='"variant": "mma", "KS": 1, "PAD": 4, "ASYNC_STAGES": 3, "WN": 1, "NT": 2'
  c=(--candidate 'auto={"variant": "auto"}' --candidate 'ts={"variant": "tallskinny"}')
  for s in 1 2 4 8 16 32; do c+=(--candidate "t128k$s={$M, \"WM\": 4, \"MT\": 2, \"KSPLIT\": $s}"); done
  for s in 4 16; do c+=(--candidate "t64k$s={$M, \"WM\": 2, \"MT\": 2, \"KSPLIT\": $s}" \
                        --candidate "t256k$s={$M, \"WM\": 4, \"MT\": 4, \"ASYNC_STAGES\": 2, \"KSPLIT\": $s}"); done
  TAILN=12 step tall 400 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 --shapes "$TALL" \
    --json "$out/tall.json" "${c[@]}"
fi
if part split; then  # the split-K model's choice (auto) beside the splits around it
  M='"variant": "mma", "KS": 1, "PAD": 4, "ASYNC_STAGES": 3'
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 1 2 4 8 16 32 64 128 256; do c+=(--candidate "t128k$s={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 2, \"KSPLIT\": $s}"); done
  TAILN=14 step split_tall 300 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 \
    --shapes "$TALL" --json "$out/split_tall.json" "${c[@]}"
  c=(--candidate 'auto={"variant": "auto"}')
  for s in 1 2 4 128 256 512; do c+=(--candidate "t64k$s={$M, \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"KSPLIT\": $s}"); done
  TAILN=3 step split_64 120 python3 bench/gpu/wgmma_lead.py --dtype float64 --rounds 3 \
    --shapes 16384x64x4096,64x64x65536 --json "$out/split_64.json" "${c[@]}"
  c=(--candidate 'auto={"variant": "auto"}')
  T='"variant": "xgemm", "MWG": 16, "NWG": 16, "KWG": 64, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 2, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8'
  for s in 8 16 32 64 128; do c+=(--candidate "x16k$s={$T, \"KSPLIT\": $s}"); done
  TAILN=3 step split_f32 120 python3 bench/gpu/wgmma_lead.py --dtype float32 --rounds 3 \
    --shapes 256x16x8192,100x16x100000 --json "$out/split_f32.json" "${c[@]}"
fi
cd "$out" && tar czf store_pairs.tgz --remove-files ./*.txt ./*.json && ls
