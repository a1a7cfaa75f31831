#!/usr/bin/env bash
# GPU machine (device tool): tune xgemm on the NVIDIA GPU, save the winners, then time
# `auto` and the fixed variants beside cuBLAS (torch) and CLBlast in the same call.
#   run with carry [".whl"]:  bash bench/gpu/tune_and_bench.sh [TUNE_BUDGET_S]
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
budget=${1:-150}
log() { echo "\$ $*" | tee -a "$out/$logname"; timeout "${T:-400}" "$@" 2>&1 | tee -a "$out/$logname"; }

logname=tune.txt
space=(--param MWG=64,128,256 --param NWG=64,128 --param KWG=8,16,32 --param MDIMC=8,16,32
       --param NDIMC=8,16,32 --param VW=2,4 --param VWM=1,2,4,8 --param VWN=1,2,4
       --param PAD=0,1 --param DOUBLE_BUFFER=0,1 --param KUNROLL=8,16,32 --param WARPN=8,16,32)
T=$((budget + 120)) log python3 -m portgemm.tune --device gpu --variant xgemm --sizes 4096 \
  --strategy model --budget "$budget" --reps 3 --top 15 --no-progress --save --level name "${space[@]}"
T=$((budget / 2 + 120)) log python3 -m portgemm.tune --device gpu --variant xgemm --sizes 1024 \
  --strategy model --budget $((budget / 2)) --reps 5 --top 10 --no-progress --save --level name "${space[@]}"
cp ~/.cache/portgemm/tuning.json "$out/tuning-nvidia.json"
python3 -m portgemm.tune --device gpu --sizes 1024,2048,4096,8192 --show 2>&1 | tee -a "$out/tune.txt"

logname=bench.txt
T=420 log python3 -m portgemm.bench --device gpu --variant auto,xgemm,local,tiled \
  --sizes 1024,2048,4096,8192 --reps 10 --warmup 3 --no-progress --json "$out/bench.json"
logname=clblast.txt
(cd .whl/clblast-gpu && ./run.sh --platform NVIDIA --sizes 1024,2048,4096,8192) 2>&1 | tee "$out/clblast.txt"
logname=overhead.txt
T=120 log python3 bench/overhead.py --device gpu --reps 300
