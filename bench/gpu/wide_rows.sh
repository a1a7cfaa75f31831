#!/bin/bash
# The wide kernel for C of 16-128 rows on the GPU (device tool, carry [".whl"]): its tests
# on the GPU, then bench/gpu/wide_rows.py (A read in fours or one at a time, tiles of
# 16-64 rows, layers along K) beside auto and cuBLAS.
#   source .whl/setup.sh && bash bench/gpu/wide_rows.sh
source bench/gpu/steps.sh
step pytest_wide 240 python3 -m pytest -q -x tests/test_wide.py -k "gpu"
cd bench/gpu && step wide_rows 480 python3 wide_rows.py --json "$out/wide_rows.json" "$@"
