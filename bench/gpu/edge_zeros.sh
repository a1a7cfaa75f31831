#!/bin/bash
# mma's asynchronous copies: zeros past M and N (device tool, carry [".whl", "build/before"],
# build/before from `git archive BASE portgemm kernels_cl`):
#   tests  mma's and the routing's tests on the GPU
#   turns  auto before and after as whole processes in turns (steps.sh), float64, at C
#          whose edge tiles are mostly past N or M, and at C of whole tiles; the control
#          is xgemm (unchanged)
#   PARTS="tests turns" bash bench/gpu/edge_zeros.sh
source bench/gpu/steps.sh
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_mma.py tests/test_shipped_database.py -k "gpu or shipped or route"
fi
if part turns; then
  turns edges float64 2050x2050x2050,5000x5000x2000,4097x4097x4097,1000x1000x1000,3000x200x3000,8192x130x8192,100000x36x512,1000x77x300,4096x4096x4096,16384x56x4096 \
    '"variant": "xgemm"'
fi
