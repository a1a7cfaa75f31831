#!/usr/bin/env bash
# GPU machine (device tool), release check: the test suite on the GPU, then `auto` (from
# the shipped tuning database only) beside cuBLAS and CLBlast, and the call overhead.
#   run with carry [".whl"]:  bash bench/gpu/final_check.sh
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
rm -f ~/.cache/portgemm/tuning.json  # shipped database only
log() { echo "\$ $*" | tee -a "$out/$logname"; timeout "${T:-400}" "$@" 2>&1 | tee -a "$out/$logname"; }
logname=pytest.txt
T=240 log python3 -m pytest -q -p no:cacheprovider tests/test_correctness.py tests/test_fast_variants.py \
  tests/test_shipped_database.py tests/test_errors.py tests/test_cache.py tests/test_ndrange.py \
  tests/test_drivers.py tests/test_bench.py
logname=bench.txt
python3 -m portgemm.tune --device gpu --sizes 256,1024,2048,4096,8192 --show 2>&1 | tee -a "$out/bench.txt"
T=300 log python3 -m portgemm.bench --device gpu --variant auto,local,inreg,naive \
  --sizes 1024,2048,4096,8192 --reps 10 --warmup 3 --no-progress --json "$out/bench.json"
(cd .whl/clblast-gpu && ./run.sh --platform NVIDIA --sizes 1024,2048,4096,8192) 2>&1 | tee "$out/clblast.txt"
logname=overhead.txt
T=120 log python3 bench/overhead.py --device gpu --reps 500
