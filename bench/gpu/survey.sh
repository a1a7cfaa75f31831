#!/usr/bin/env bash
# Device tool, carry [".whl"]: auto's speed beside cuBLAS on random shapes of every class
# (bench/fuzz_auto.py --print-shapes: the shapes its correctness cases draw), through
# python -m portgemm.bench, float32 (seed SEED) and float64 (seed SEED + 1).
#   OUT=dir [SEED=7] [CASES=48] [DRAW="--max-flops 4e11 --max-bytes 2e9"] bash bench/gpu/survey.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
seed=${SEED:-7}
for dtype in float32 float64; do
  shapes=$(python3 bench/fuzz_auto.py --print-shapes --cases "${CASES:-48}" --seed "$seed" ${DRAW:-})
  TAILN=0 step "survey_$dtype" "${SURVEY_S:-280}" python3 -m portgemm.bench --device gpu \
    --variant auto --dtype "$dtype" --no-progress --no-clblast --reps 10 --warmup 3 \
    --sizes "$shapes" --json "$out/survey_$dtype.json"
  seed=$((seed + 1))
done
