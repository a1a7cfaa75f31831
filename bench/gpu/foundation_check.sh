#!/usr/bin/env bash
# GPU machine (device tool), foundation check: driver discovery, correctness suite,
# bench of every variant beside cuBLAS, and the CLBlast anchor -- all in one call.
#   run with carry [".whl"]:  bash bench/gpu/foundation_check.sh
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
ls /etc/OpenCL/vendors/ 2>&1 | tee "$out/vendors.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee -a "$out/vendors.txt"
python3 -m portgemm.devices 2>&1 | tee "$out/devices.txt"
timeout 300 python3 -m pytest -q -x -p no:cacheprovider tests/test_correctness.py \
  tests/test_errors.py tests/test_cache.py tests/test_ndrange.py tests/test_drivers.py \
  2>&1 | tail -25 | tee "$out/pytest.txt"
cmd="python3 -m portgemm.bench --device gpu --variant naive,tiled,inreg --tile 8x8 --sizes 1024,2048,4096 --reps 5 --no-progress --json $out/bench_foundation.json"
echo "\$ $cmd" | tee "$out/bench_foundation.txt"
timeout 300 $cmd 2>&1 | tee -a "$out/bench_foundation.txt"
(cd .whl/clblast-gpu && timeout 200 ./run.sh --platform NVIDIA --sizes 1024,2048,4096,8192) 2>&1 | tee "$out/clblast.txt"
