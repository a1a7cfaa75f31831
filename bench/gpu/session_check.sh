#!/usr/bin/env bash
# GPU machine (device tool), end-of-session check of main as it stands: the whole test
# suite on the GPU (and whatever CPU driver the machine has), `auto` from the shipped
# database beside cuBLAS and CLBlast in the same run, and the call overhead.
#   run with carry [".whl"]:  bash bench/gpu/session_check.sh     (about 9 minutes: the tests take 6-7)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$out/gpu.txt"
python3 -m portgemm.devices > "$out/devices.txt" 2>&1
TAILN=8 step pytest 480 python3 -m pytest -q -rf --tb=line -p no:cacheprovider tests/
TAILN=20 step bench 170 python3 -m portgemm.bench --device gpu --variant auto \
  --sizes 1024,2048,4096,8192 --reps 10 --warmup 3 --no-progress --json "$out/bench.json"
TAILN=8 step clblast 50 bash -c 'cd .whl/clblast-gpu && ./run.sh --platform NVIDIA --sizes 1024,2048,4096,8192'
TAILN=6 step overhead 40 python3 bench/overhead.py --device gpu --reps 300
