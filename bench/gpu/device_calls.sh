#!/usr/bin/env bash
# Device tool, carry [".whl"]: calls on device arrays that return once queued. The
# resident and stack tests on the GPU (pytest-xdist: bash ../shared/tools/device-wheels.sh
# pytest-xdist==3.8.0 execnet==2.1.2), then bench/device_calls.py beside torch.
#   OUT=dir [PARTS="tests calls"] bash bench/gpu/device_calls.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 8 \
    tests/test_resident.py tests/test_stacks.py
fi
if part calls; then
  TAILN=10 step device_calls 240 python3 bench/device_calls.py --device gpu --rounds 5 \
    --calls 20
fi
