#!/usr/bin/env bash
# Device tool, carry [".whl"]: tallskinny's stacks on the GPU. The stack and tallskinny
# tests (pytest-xdist: bash ../shared/tools/device-wheels.sh pytest-xdist==3.8.0
# execnet==2.1.2), tall_stacks.py beside torch, and issue 9's tall shapes.
#   OUT=dir [PARTS="tests stacks tall"] bash bench/gpu/tall_stacks.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 8 \
    tests/test_stacks.py tests/test_tallskinny.py
fi
if part stacks; then
  TAILN=10 step tall_stacks 200 python3 bench/gpu/tall_stacks.py --device gpu --rounds 5
fi
if part tall; then
  (cd bench/gpu && TAILN=8 step tall 100 python3 shapes.py --only tall --json "$out/shapes_tall.json")
fi
