#!/bin/bash
# mma's float64 changes of 2026-11-26 (night), auto before and after as whole processes in
# turns (steps.sh; device tool, carry [".whl", "build/before"], build/before from
# `git archive BASE portgemm kernels_cl`):
#   tests   mma's and the routing's tests on the GPU
#   medium  the 64 x 96 preset: a C of 150-200 columns over a deep K, beside the 64 x 64
#           deep-K entry's tile as the control
#   edges   zeros past M and N in the asynchronous copies: C whose edge tiles are mostly
#           past N or M, and C of whole tiles, beside xgemm (unchanged) as the control
#   PARTS="tests medium edges" bash bench/gpu/mma_turns.sh
source bench/gpu/steps.sh
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_mma.py tests/test_shipped_database.py -k "gpu or shipped or route"
fi
if part medium; then
  turns medium float64 8192x170x8192,8192x180x4096,8192x192x8192,4096x176x8192,16384x184x4096,16384x160x4096,4096x200x4096,8192x150x8192 \
    '"variant": "mma", "KSPLIT": "model", "WM": 2, "WN": 2, "MT": 2, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 4'
fi
if part edges; then
  turns edges float64 2050x2050x2050,5000x5000x2000,4097x4097x4097,1000x1000x1000,3000x200x3000,8192x130x8192,100000x36x512,1000x77x300,4096x4096x4096,16384x56x4096 \
    '"variant": "xgemm"'
fi
