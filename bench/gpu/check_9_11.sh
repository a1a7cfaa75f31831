#!/usr/bin/env bash
# GPU machine (device tool): the record of issues 9 (tall-skinny, split-K, the models) and
# 11 (GPU end to end) -- the tests of the new GPU paths on the GPU, then every goal's
# figure beside cuBLAS (and the copy bandwidth, torch, CLBlast) in the same run.
#   run with carry [".whl"]:  bash bench/gpu/check_9_11.sh part1   (about 8 minutes)
#                             bash bench/gpu/check_9_11.sh part2   (about 5 minutes)
#                             bash bench/gpu/check_9_11.sh f64     (about 3 minutes)
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; work=/tmp/check_${1:-part1}; mkdir -p "$out" "$work"
rm -f ~/.cache/portgemm/tuning.json  # the shipped database only
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         timeout "$limit" "$@" > "$work/$name.txt" 2>&1; echo "rc=$?" >> "$work/$name.txt";
         tail -n "${TAILN:-12}" "$work/$name.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$work/gpu.txt"
if [ "${1:-part1}" = part1 ]; then
  # issue 11's GPU paths; tallskinny's tests (issue 9) run in part2: with them this step
  # did not finish in 170 or 200 s on a fresh machine (2026-11-22-h200-sgemm-3xtf32)
  TAILN=6 step pytest 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_resident.py tests/test_structure.py tests/test_wgmma.py \
    tests/test_shipped_database.py
  TAILN=8 step goals 90 python3 bench/gpu/goals.py --json "$work/goals.json"
  TAILN=5 step transfers 80 python3 bench/gpu/transfers.py --json "$work/transfers.json"
  TAILN=4 step shapes 140 python3 bench/gpu/shapes.py --json "$work/shapes.json"
  step clblast 60 bash -c 'cd .whl/clblast-gpu && ./run.sh --platform NVIDIA --sizes 1024,2048,4096,8192'
elif [ "$1" = part2 ]; then
  TAILN=6 step pytest 200 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_tallskinny.py -k gpu  # the GPU cases (its PoCL 5 ones took minutes more)
  TAILN=3 step sweep_ts 90 python3 -m portgemm.tune --model tallskinny --device gpu \
    --sizes 8x8x33554432,3x3x50000000,5x5x33554432,9x9x2097152 --sweep --reps 3 --json "$work/sweep_ts.json"
  TAILN=4 step overhead 60 python3 bench/gpu/resident_overhead.py
  TAILN=3 step sweep_phvm 60 python3 -m portgemm.tune --model phvm --device gpu \
    --sizes 5x5x30000000 --sweep --reps 2 --json "$work/sweep_phvm.json"
else
  TAILN=14 step f64 170 python3 -m portgemm.tune --device gpu --variant xgemm --dtype float64 \
    --sizes 4096 --strategy model --fraction 0.3 --budget 150 --reps 3 --no-progress --top 8 \
    --param MWG=64,128 --param NWG=64,128,256 --param KWG=8,16 --param MDIMC=8,16 \
    --param NDIMC=16,32 --param VW=1,2 --param VWM=1,2 --param VWN=1,2,4 --param PAD=0,1 \
    --param DOUBLE_BUFFER=1 --param KUNROLL=8 --param WARPN=8,16,32 --param KSPLIT=1 \
    --param SWIZZLE=1 --database "$work/f64.json" --level vendor-type
fi
tar czf "$out/check_${1:-part1}.tgz" -C "$work" .
