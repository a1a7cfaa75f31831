#!/usr/bin/env bash
# GPU machine (device tool): the seed experiments that run device kernels
# (`python -m portgemm.experiments run device`), at the reports' sizes, on the NVIDIA GPU,
# with cuBLAS (torch) as the vendor library of 002-device-ladder and 001-phvm-vs-vendor.
#   run with carry [".whl"]:  bash bench/gpu/experiments.sh [NAME ...]   (NAMEs: only those)
# Comes back as two files: $OUT/h200-experiments.tar.gz (NAME.json, NAME.md, NAME.png of
# each experiment and devices.txt; unpack into bench/results/) and $OUT/experiments.log.
# At most about 8.5 minutes: each point predicted over 20 s is skipped (marked in its table
# and plot), each experiment stops after its time limit, none starts in the last 40 s of
# the 8-minute loop (the rest are logged as not run), and setup and tar take well under a
# minute. In a trial on an H200 the three of paper 001 took 85 s (001-phvm-vs-vendor: the
# paper's MTXA and MTXB, MTXC at K/10; mostly drawing and uploading 12 GB operands), 32 s
# (001-model-sweep) and 40 s (001-gs-bs-grid in full; --quick here, 15 points for 45).
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
name=h200-experiments
dir=/tmp/$name; rm -rf "$dir"; mkdir -p "$dir"
log="$out/experiments.log"
rm -f ~/.cache/portgemm/tuning.json  # no tuning database: the experiments name their parameters
python3 -m portgemm.devices > "$dir/devices.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tee -a "$log"

# cheapest first, so that a slow one cannot starve the others
experiments=(003-tile-sweep 003-length-sweep 001-model-sweep 001-gs-bs-grid
             002-device-ladder 004-tile-width 001-phvm-vs-vendor
             000-workgroup-sweep 000-tiled-block-sweep 000-device-size-scaling)
# the whole GS x BS grid is the tuner's (python -m portgemm.tune --model phvm --sweep);
# here every other power of two of GS and BS shows its shape in a quarter of the time
declare -A options=([001-gs-bs-grid]="--quick")
listed=$(python3 -c 'from portgemm.experiments import select; from portgemm.experiments.spec import MODES
print(" ".join(e.name for e in select("device", MODES["full"])))')
for e in $listed; do  # an experiment added since this script was written still runs, last
  [[ " ${experiments[*]} " == *" $e "* ]] || experiments+=("$e")
done
if (( $# )); then experiments=("$@"); fi

deadline=$((SECONDS + 480))
for e in "${experiments[@]}"; do
  left=$((deadline - SECONDS))
  if (( left < 40 )); then
    echo "not run (time): $e" | tee -a "$log"
    continue
  fi
  limit=$(( left - 30 < 150 ? left - 30 : 150 ))  # the experiment writes its files before
  echo "\$ experiments run $e (time limit ${limit} s)" | tee -a "$log"
  # shellcheck disable=SC2086  # options are words
  timeout $((limit + 60)) python3 -m portgemm.experiments run "$e" --device gpu \
    ${options[$e]:-} --budget 20 --time-limit "$limit" --out "$dir" --no-progress 2>&1 \
    | tee -a "$log"
done
tar -czf "$out/$name.tar.gz" -C /tmp "$name"
ls -l "$out" | tee -a "$log"
