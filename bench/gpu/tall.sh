#!/bin/bash
# A tall C of 8-24 columns on the GPU (device tool, carry [".whl"]): the tallskinny and
# skinny tests on the GPU, then auto against the route before (xgemm) and cuBLAS.
#   source .whl/setup.sh && bash bench/gpu/tall.sh
source bench/gpu/steps.sh
step pytest_tall 300 python3 -m pytest -q -x tests/test_tallskinny.py tests/test_wide.py -k gpu
cd bench/gpu && TAILN=16 step tall 400 python3 skinny.py --json "$out/tall.json" --shapes \
    4096x9x4096,4096x10x4096,4096x12x4096,4096x16x4096,4096x20x4096,4096x24x4096,8192x12x8192,8192x16x8192,16384x16x4096,50000x12x1024,1000x20x5000,2048x24x2048,8192x8x8192,8192x24x8192
grep -o '"m": [0-9]*, "n": [0-9]*, "k": [0-9]*\|"variant": "[a-z]*", "params"\|"kernel_ms": [0-9.]*, "of_copy\|"before_ms": [0-9.]*\|"of_cublas": [0-9.]*' "$out/tall.txt" | paste -d' ' - - - - - 
