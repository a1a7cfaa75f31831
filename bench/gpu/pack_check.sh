#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): pack_b's groups along B's rows checked on every
# device there (the H100/H200 and the machine's PoCL 5 CPU device, whose branches the Zen 5
# cannot compile), and the pack kernels timed alone on that PoCL's 16 cores.
#   bash bench/gpu/pack_check.sh      (about 5 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
python3 -m portgemm.devices > "$out/devices.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/cpu.txt"
TAILN=6 step pytest 400 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
  tests/test_panel.py tests/test_auto_packing.py tests/test_bench.py tests/test_fast_variants.py
TAILN=14 step pocl-pack-times 120 python3 bench/pack_times.py --device pocl \
  --sizes 1024,4096,1000x999,64x16384
