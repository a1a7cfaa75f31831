#!/usr/bin/env bash
# Device tool, carry [".whl"]: matmul's vectors and stacks on the GPU (their tests, the
# transfer and error tests, bench/stacks.py against a call a pair and numpy), then auto on
# fresh random shapes for correctness (bench/fuzz_auto.py) and speed beside cuBLAS
# (survey.sh's draw). About 9 minutes.
#   OUT=dir [SEEDS="101 102"] [SEED=103] [PARTS="tests stacks fuzz survey"] bash bench/gpu/stacks_check.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_stacks.py tests/test_resident.py tests/test_errors.py
fi
if part stacks; then
  for dtype in float32 float64; do
    TAILN=9 step "stacks_$dtype" 100 python3 bench/stacks.py --device gpu --rounds 5 \
      --dtype "$dtype" --json "$out/stacks_$dtype.json"
  done
fi
if part fuzz; then
  for seed in ${SEEDS:-101 102}; do
    TAILN=3 step "fuzz_$seed" 150 python3 bench/fuzz_auto.py --device gpu --cases 120 \
      --seed "$seed" --json "$out/fuzz_$seed.json"
    grep FAIL "$out/fuzz_$seed.txt" | head -20
  done
fi
if part survey; then
  seed=${SEED:-103}
  for dtype in float32 float64; do
    shapes=$(python3 bench/fuzz_auto.py --print-shapes --cases "${CASES:-40}" --seed "$seed" \
      --max-flops 4e11 --max-bytes 2e9)
    TAILN=0 step "survey_$dtype" 150 python3 -m portgemm.bench --device gpu \
      --variant auto --dtype "$dtype" --no-progress --no-clblast --reps 10 --warmup 3 \
      --sizes "$shapes" --json "$out/survey_$dtype.json"
    seed=$((seed + 1))
  done
fi
