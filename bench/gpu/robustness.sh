#!/usr/bin/env bash
# Device tool, carry [".whl"]: what a user's code meets beyond shapes, on the GPU and
# the GPU machine's PoCL: `out` over an operand, byte-swapped operands, calls from
# threads, NaN and infinities in every variant, the queue's bounded program cache
# (their tests), a process forked after portgemm ran (bench/gpu/fork_probe.py), and what
# one launch costs the host (bench/gpu/launch_cost.py, bench/gpu/call_layers.py).
#   OUT=dir [PARTS="tests fork launch"] bash bench/gpu/robustness.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if part tests; then
  TAILN=6 step tests 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider -n 8 \
    tests/test_overlap.py tests/test_calls_in_threads.py tests/test_non_finite.py \
    tests/test_cache.py
fi
if part fork; then
  TAILN=4 step fork 200 python3 bench/gpu/fork_probe.py --device gpu
fi
if part launch; then
  TAILN=14 step launch 150 python3 bench/gpu/launch_cost.py --json "$out/launch_cost.json"
  TAILN=8 step layers 150 python3 bench/gpu/call_layers.py --device gpu --size 64 --reps 2000
fi
