#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): wgmma split along K, and tallskinny's sum of
# the slices, beside auto, xgemm and cuBLAS in the same run. About 7 minutes a part.
#   bash bench/gpu/wgmma_split.sh first    # the tests of both on the GPU; wgmma's split
#                                          # on deep-K, uneven-wave and medium shapes;
#                                          # tallskinny at K = 2^21 with GS a multiple of
#                                          # the 132 SMs (balanced runs of K)
#   bash bench/gpu/wgmma_split.sh second   # tallskinny's tests on the GPU; how many
#                                          # layers few tiles want; the medium class;
#                                          # tallskinny's relaxed loads at 2^21 and 2^25
#   bash bench/gpu/wgmma_split.sh other    # another GPU (kind nvidia-h100-x1): the medium
#                                          # class and few tiles, auto's deep-K shapes
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt"
if [ "${1:-first}" = first ]; then
  TAILN=6 step pytest 150 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_wgmma.py "tests/test_tallskinny.py::test_xgemm_split_k" \
    "tests/test_tallskinny.py::test_split_kernels_are_bitwise_deterministic"
  cd bench/gpu
  TAILN=4 step wgmma_split 240 python3 wgmma_split.py --json "$out/wgmma_split.json"
  TAILN=4 step parts_2m 120 python3 tallskinny_parts.py --k 2097152 --sizes 3,5,7,8,9 \
    --modes 11 --configs 128x512,132x512,264x512,128x1024,132x1024,264x256,396x256,528x256 \
    --json "$out/parts_2m.json"
elif [ "$1" = other ]; then
  cd bench/gpu
  TAILN=4 step wgmma_waves 220 python3 wgmma_split.py --set waves --set medium \
    --json "$out/wgmma_waves.json"
  TAILN=4 step deep 100 python3 shapes.py --only deep --json "$out/deep.json"
  tar czf "$out/other.tgz" -C "$out" wgmma_waves.txt wgmma_waves.json deep.txt deep.json gpu.txt
  rm -f "$out"/*.txt "$out"/*.json
else
  TAILN=6 step pytest 150 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_tallskinny.py -k gpu
  cd bench/gpu
  TAILN=4 step wgmma_waves 220 python3 wgmma_split.py --set waves --set medium \
    --json "$out/wgmma_waves.json"
  TAILN=4 step parts_relaxed 120 python3 tallskinny_parts.py --k 2097152 --k 33554432 \
    --sizes 3,5,7,8,9 --modes 11 --configs 128x512,132x512,128x1024,132x1024,264x512 \
    --json "$out/parts_relaxed.json"
fi
