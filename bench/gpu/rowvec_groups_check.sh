#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): ROWVEC's chunked sums built and checked on
# every device there (the H100/H200 and the machine's PoCL 5 CPU device), and the CPU
# rule of 64 work-items a core against sweeps over the groups on that PoCL's 16 cores.
#   bash bench/gpu/rowvec_groups_check.sh      (about 8 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
python3 -m portgemm.devices > "$out/devices.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/cpu.txt"
TAILN=6 step pytest 240 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_tallskinny.py
unset OPENBLAS_CORETYPE
TAILN=60 step pocl-groups 120 python3 bench/rowvec_groups.py --device pocl --rounds 5 \
  --groups 1,4,16,32,64,128,256,512,1024,2048,4096 \
  --sizes 3x3x8388608,8x8x4194304,1x1x16777216,16x16x2097152,32x32x100000 \
  --json "$out/pocl-groups.json"
TAILN=6 step pocl-sweep 200 python3 -m portgemm.tune --model tallskinny --device pocl \
  --sizes 8x8x4194304,3x3x8388608 --sweep --reps 3 --rounds 3 --json "$out/pocl-sweep.json"
