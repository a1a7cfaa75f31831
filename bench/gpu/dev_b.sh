#!/usr/bin/env bash
# GPU machine (device tool), development run B of 2026-11-22: tuning on the GPU --
# float64 xgemm at 4096, float32 for the medium class (512, 1000), the knobs around the
# float32 preset at 4096/8192 -- then auto beside cuBLAS with what was found.
#   run with carry [".whl"]:  bash bench/gpu/dev_b.sh      (about 9 minutes)
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; work=/tmp/dev_b; mkdir -p "$out" "$work"
export PORTGEMM_TUNING_DB="$work/tuned.json"
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         timeout "$limit" "$@" > "$work/$name.txt" 2>&1; echo "rc=$?" >> "$work/$name.txt";
         tail -n "${TAILN:-15}" "$work/$name.txt"; }
step f64 200 python3 -m portgemm.tune --device gpu --variant xgemm --dtype float64 --sizes 4096 \
  --strategy model --fraction 0.1 --budget 170 --reps 3 --no-progress --save --level vendor-type --top 8
step medium 110 python3 -m portgemm.tune --device gpu --variant xgemm --sizes 512,1000 \
  --strategy model --fraction 0.1 --budget 90 --reps 5 --no-progress --save --level vendor-type --top 8
step knobs 170 python3 bench/gpu/knobs.py --json "$work/knobs.json" --budget 140
step bench 90 python3 -m portgemm.bench --device gpu --variant auto --sizes 512,1000,4096,4097 \
  --reps 10 --warmup 3 --no-progress --no-clblast --json "$work/bench.json"
cp "$PORTGEMM_TUNING_DB" "$work/tuned.json" 2>/dev/null
tar czf "$out/dev_b.tgz" -C "$work" .
ls -la "$out"
