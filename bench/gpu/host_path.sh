#!/usr/bin/env bash
# Device tool, carry [".whl", "build/before"]: a warm matmul of device arrays, the code
# before (build/before: `git archive BASE portgemm kernels_cl | tar -x -C build/before`)
# and after in turns of whole processes (bench/device_call_pieces.py), then
# bench/device_calls.py beside torch, then the tests of device arrays on the GPU.
#   OUT=dir [PARTS="pieces calls tests"] [SIZES="64 1024"] bash bench/gpu/host_path.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if part pieces; then
  for turn in 1 2; do for side in before after; do for size in ${SIZES:-64 1024}; do
    path=$PWD; [ $side = before ] && path=$PWD/build/before
    TAILN=3 PYTHONPATH=/tmp/site:$path step "pieces_${size}_${side}_$turn" 120 \
      python3 bench/device_call_pieces.py --device gpu --size $size --reps 1000
  done; done; done
fi
if part calls; then
  TAILN=10 step device_calls 240 python3 bench/device_calls.py --device gpu --rounds 5 \
    --calls 20
fi
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 8 \
    tests/test_resident.py tests/test_stacks.py tests/test_ndrange.py
fi
