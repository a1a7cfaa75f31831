#!/usr/bin/env bash
# Device tool, carry [".whl"]: stacks of device arrays on the GPU. The stack, resident
# and tallskinny tests (pytest-xdist: bash ../shared/tools/device-wheels.sh
# pytest-xdist==3.8.0 execnet==2.1.2), then device_stacks.py beside torch.
#   OUT=dir [PARTS="tests stacks"] bash bench/gpu/device_stack_check.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 8 \
    tests/test_stacks.py tests/test_resident.py tests/test_tallskinny.py tests/test_panel.py
fi
if part stacks; then
  TAILN=10 step device_stacks 200 python3 bench/gpu/device_stacks.py --device gpu --rounds 5
fi
