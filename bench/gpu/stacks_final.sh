#!/usr/bin/env bash
# Device tool, carry [".whl"]: the whole test suite on the GPU, then bench/stacks.py
# beside torch in both types. About 9 minutes.
#   OUT=dir [PARTS="tests stacks"] bash bench/gpu/stacks_final.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  TAILN=8 step tests 440 python3 -m pytest -q -rf --tb=line -p no:cacheprovider -x tests/
fi
if part stacks; then
  for dtype in ${DTYPES:-float32 float64}; do
    TAILN=11 step "stacks_$dtype" 70 python3 bench/stacks.py --device gpu --rounds 3 \
      --dtype "$dtype" --json "$out/stacks_$dtype.json"
  done
fi
