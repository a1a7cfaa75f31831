#!/usr/bin/env bash
# Device tool, carry [".whl"]: tallskinny's FLAT form on the GPU machine. Its tests on every
# device there (the GPU and the host's PoCL CPU device; pytest-xdist), then FLAT against
# the rows' form on that PoCL device (bench/flat_rows.py --try-flat: auto keeps the rows'
# form on PoCL until measured).
#   OUT=dir [PARTS="tests pocl"] bash bench/gpu/flat_check.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 12 \
    tests/test_tallskinny.py tests/test_structure.py
fi
if part pocl; then
  TAILN=16 step pocl_flat 240 python3 bench/flat_rows.py --device cpu --try-flat --rounds 4 \
    1x2x4194304 1x3x2097152 2x2x4194304 2x3x2097152 3x3x2097152 4x4x1048576 8x2x2097152 \
    8x8x1048576 1x8x1048576 4096x2x4096
fi
