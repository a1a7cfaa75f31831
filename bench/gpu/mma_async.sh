#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): mma's float64 with its slabs staged by
# asynchronous copies (ASYNC_STAGES 2-4, cp.async) against the register path: the GPU's
# mma tests (real cp.async) and xgemm's, which share async_copy.h; an exhaustive search of
# the tilings with 0 (registers), 2, 3 and 4 stages at 4096 (knobs.py, beside cuBLAS
# DGEMM); then the shipped entry, two fixed candidates and the search's best three in
# turns beside cuBLAS at 1024-8192.
# About 6 minutes.
#   run with carry [".whl"]:  bash bench/gpu/mma_async.sh
# `bash bench/gpu/mma_async.sh ablate` instead times the best asynchronous tilings with
# one part of their loop taken out at a time (wgmma_ablate.py), then searches again.
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt"
SHIPPED='{"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 8}'
SPACE='{"WM":[1,2,4],"WN":[1,2,4],"MT":[2,4],"NT":[4,8],"KS":[1,2],"PAD":[4],"ASYNC_STAGES":[0,2,3,4]}'
if [ "${1:-}" = ablate ]; then
  TAILN=4 step pytest 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_mma.py -k "gpu"
  cd bench/gpu
  for tile in '{"WM":2,"WN":2,"MT":2,"NT":8,"ASYNC_STAGES":2}' '{"WM":1,"WN":4,"MT":4,"NT":4,"ASYNC_STAGES":3}'; do
    name=ablate$(echo "$tile" | tr -dc '0-9')
    TAILN=3 step "$name" 150 python3 wgmma_ablate.py --variant mma --dtype float64 \
      --shapes 4096x4096x4096:1,8192x8192x8192:1 --params "$tile" --json "$out/$name.json" \
      --ablations none,elementb,copies,asyncbarrier,fragments,asyncwait,copies+asyncbarrier,none
  done
  TAILN=14 step knobs 200 python3 knobs.py --variant mma --dtype float64 --sizes 4096 \
    --budget 180 --json "$out/knobs.json" --space "$SPACE"
  exit 0
fi
TAILN=4 step pytest 240 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_mma.py tests/test_fast_variants.py -k "gpu and (mma or async)"
cd bench/gpu
TAILN=16 step knobs 230 python3 knobs.py --variant mma --dtype float64 --sizes 4096 \
  --budget 160 --json "$out/knobs.json" --space "$SPACE"
# the three fastest of the search, one NAME=JSON a line
mapfile -t best < <(python3 - "$out/knobs.json" <<'PY'
import json, sys
rows = sorted(json.load(open(sys.argv[1]))["candidates"], key=lambda r: r["ms"]["4096"])
for i, row in enumerate(rows[:3]):
    print(f"best{i + 1}=" + json.dumps(row["params"]))
PY
)
args=(); for c in "${best[@]}"; do echo "candidate $c"; args+=(--candidate "$c"); done
TAILN=8 step turns 240 python3 wgmma_lead.py --variant mma --dtype float64 --rounds 3 \
  --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,1024x1024x1024,4097x4097x4097 \
  --json "$out/turns.json" --candidate "shipped=$SHIPPED" \
  --candidate 'shipped PAD 4={"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4}' \
  --candidate 'async 3 PAD 4={"WM": 1, "WN": 4, "MT": 4, "NT": 4, "PAD": 4, "ASYNC_STAGES": 3}' \
  "${args[@]}"
TAILN=3 step ablate 150 python3 wgmma_ablate.py --variant mma --dtype float64 \
  --shapes 4096x4096x4096:1,8192x8192x8192:1 --json "$out/ablate.json" --ptx-dir /tmp/ptx \
  --params '{"WM": 1, "WN": 4, "MT": 4, "NT": 4, "PAD": 4, "ASYNC_STAGES": 3}' \
  --ablations none,elementb,ca16,copies,asyncbarrier,fragments,none
tar czf "$out/ptx.tgz" -C /tmp/ptx .
