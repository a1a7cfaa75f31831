#!/bin/bash
# mma's 64 x 96 float64 preset (device tool, carry [".whl", "build/before"], build/before
# from `git archive BASE portgemm kernels_cl`):
#   tests  mma's and the routing's tests on the GPU
#   turns  auto before and after as whole processes in turns (steps.sh), beside the 64 x 64
#          deep-K entry's tile as the control, at a C of 150-200 columns over a deep K
#   PARTS="tests turns" bash bench/gpu/medium_tiles.sh
source bench/gpu/steps.sh
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_mma.py tests/test_shipped_database.py -k "gpu or shipped or route"
fi
if part turns; then
  turns medium float64 8192x170x8192,8192x180x4096,8192x192x8192,4096x176x8192,16384x184x4096,16384x160x4096,4096x200x4096,8192x150x8192 \
    '"variant": "mma", "KSPLIT": "model", "WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 4'
fi
