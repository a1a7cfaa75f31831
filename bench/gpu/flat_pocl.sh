#!/usr/bin/env bash
# Device tool, carry [".whl"]: auto's FLAT on the GPU machine's PoCL CPU device (tiles of
# 2 rows or more, under 8 columns) against the rows' form, then the tallskinny tests on
# every device there.
#   OUT=dir [PARTS="pocl tests"] bash bench/gpu/flat_pocl.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if part pocl; then
  TAILN=12 step pocl_auto 200 python3 bench/flat_rows.py --device cpu --rounds 4 \
    2x3x2097152 3x3x2097152 5x2x2097152 6x4x1048576 8x3x1048576 2x7x1048576 1x3x2097152
fi
if part tests; then
  TAILN=4 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 12 \
    tests/test_tallskinny.py
fi
