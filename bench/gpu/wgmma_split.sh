#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): wgmma split along K on deep-K, medium and
# uneven-wave shapes beside auto, xgemm and cuBLAS; tallskinny's balanced runs of K at
# K = 2^21 with grids of whole waves (GS a multiple of the 132 SMs); the tests of both
# on the GPU. About 7 minutes.
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt"
TAILN=6 step pytest 150 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_wgmma.py "tests/test_tallskinny.py::test_xgemm_split_k" \
  "tests/test_tallskinny.py::test_split_kernels_are_bitwise_deterministic"
cd bench/gpu
TAILN=4 step wgmma_split 240 python3 wgmma_split.py --json "$out/wgmma_split.json"
TAILN=4 step parts_2m 120 python3 tallskinny_parts.py --k 2097152 --sizes 3,5,7,8,9 \
  --modes 11 --configs 128x512,132x512,264x512,128x1024,132x1024,264x256,396x256,528x256 \
  --json "$out/parts_2m.json"
