#!/usr/bin/env bash
# GPU machine (device tool), development run A of the session of 2026-11-22: the test
# suite's new kernels on the GPU, the probe, host<->device transfers beside torch, the
# GS x BS sweeps of the tall-skinny kernels beside their models, the tall-skinny and
# deep-K shapes beside cuBLAS and the copy bandwidth, KSPLIT swept.
#   run with carry [".whl"]:  bash bench/gpu/dev_a.sh      (about 9 minutes)
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; work=/tmp/dev_a; mkdir -p "$out" "$work"
rm -f ~/.cache/portgemm/tuning.json  # shipped database only
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         timeout "$limit" "$@" > "$work/$name.txt" 2>&1; echo "rc=$?" >> "$work/$name.txt";
         tail -n "${TAILN:-15}" "$work/$name.txt"; }
step devices 40 python3 -m portgemm.devices
step probe 40 python3 -c "import portgemm; from portgemm.runtime.probe import probe; print(probe(portgemm.select_device('gpu'), fresh=True))"
TAILN=6 step pytest 170 python3 -m pytest -q -p no:cacheprovider tests/test_tallskinny.py \
  tests/test_resident.py tests/test_correctness.py tests/test_structure.py
step transfers 80 python3 bench/gpu/transfers.py --json "$work/transfers.json"
step shapes 110 python3 bench/gpu/shapes.py --json "$work/shapes.json" --splits
TAILN=4 step sweep_ts 60 python3 -m portgemm.tune --model tallskinny --device gpu \
  --sizes 8x8x33554432,3x3x50000000,16x16x8388608 --sweep --reps 3 --json "$work/sweep_ts.json"
TAILN=4 step sweep_phvm 50 python3 -m portgemm.tune --model phvm --device gpu \
  --sizes 5x5x30000000,8x8x33554432 --sweep --reps 3 --json "$work/sweep_phvm.json"
tar czf "$out/dev_a.tgz" -C "$work" .
ls -la "$out"
