#!/usr/bin/env bash
# Device tool, carry [".whl"]: a stack of products in one launch on the GPU: the tests
# of every kernel family (their headers changed) and of stacks, then bench/stacks.py
# (beside torch) and one A times a stack side by side or in one launch. About 6 minutes.
#   OUT=dir [PARTS="tests stacks side"] bash bench/gpu/stacks_launch.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 330 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_stacks.py tests/test_resident.py tests/test_errors.py \
    tests/test_correctness.py tests/test_fast_variants.py
fi
if part stacks; then
  for dtype in float32 float64; do
    TAILN=11 step "stacks_$dtype" 100 python3 bench/stacks.py --device gpu --rounds 5 \
      --dtype "$dtype" --json "$out/stacks_$dtype.json"
  done
fi
if part side; then
  TAILN=6 step side 90 python3 bench/gpu/side_or_stack.py --device gpu
fi
