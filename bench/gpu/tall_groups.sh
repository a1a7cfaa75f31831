#!/bin/bash
# A tall C of 1-8 columns on the GPU (device tool, carry [".whl"]): groups capped at one
# wave of all of C's tiles. The tallskinny and skinny tests on the GPU, then auto beside
# cuBLAS with each parameter swept around its choice (BS among them: the groups before).
#   source .whl/setup.sh && bash bench/gpu/tall_groups.sh
source bench/gpu/steps.sh
step pytest_tall 300 python3 -m pytest -q -x tests/test_tallskinny.py tests/test_wide.py -k gpu
cd bench/gpu && TAILN=4 step groups 450 python3 skinny.py --json "$out/groups.json" --sweep --shapes \
    8192x8x8192,4096x8x4096,16384x8x4096,50000x8x1024,30000x8x3000,2048x7x2048,8192x6x8192,8192x4x8192,4096x4x4096,100000x5x2048,16384x3x16384,8192x2x8192,8192x1x8192,4096x12x4096,1000x20x5000
