#!/usr/bin/env bash
# GPU machine: exhaustive search of xgemm near the GPU preset at 4096 (the large class).
#   run with carry [".whl"]:  bash bench/gpu/refine_large.sh
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
cmd=(python3 -m portgemm.tune --device gpu --variant xgemm --sizes 4096 --strategy model --fraction 1
     --budget 240 --reps 3 --top 20 --no-progress --no-cache
     --only MWG=128,256 --only NWG=128 --only KWG=16,32 --only MDIMC=16,32 --only NDIMC=16
     --only VW=4 --only VWM=2,4,8 --only VWN=2,4 --only PAD=0,1 --only DOUBLE_BUFFER=0,1
     --only KUNROLL=16,32 --only WARPN=16)
echo "\$ ${cmd[*]}" | tee "$out/refine.txt"
timeout 420 "${cmd[@]}" 2>&1 | tee -a "$out/refine.txt"
