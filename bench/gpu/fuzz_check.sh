#!/usr/bin/env bash
# Device tool, carry [".whl"]: `auto` on random shapes of every class on the GPU
# (bench/fuzz_auto.py: float32 and float64, random layouts, C poisoned, float64
# reference, tall-skinny repeated bitwise), and on an H200 issue 9's figures beside the
# copy bandwidth and cuBLAS (shapes.py). About 6-8 minutes.
#   OUT=dir [CASES=160] [SEEDS="0 1"] bash bench/gpu/fuzz_check.sh
set -uo pipefail
source bench/gpu/steps.sh
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if [[ $name == *H200* ]]; then
  FUZZ_S=${FUZZ_S:-180}
  (cd bench/gpu && TAILN=22 step shapes 200 python3 shapes.py --json "$out/shapes.json")
fi
for seed in ${SEEDS:-0 1}; do
  TAILN=3 step "fuzz_$seed" ${FUZZ_S:-270} python3 bench/fuzz_auto.py --device gpu --cases "${CASES:-160}" \
    --seed "$seed" --json "$out/fuzz_$seed.json"
  grep FAIL "$out/fuzz_$seed.txt" | head -20
done
