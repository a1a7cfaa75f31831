#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): the probe with its global chase starting at
# a random line each run, and the paper's model (which reads its sigma_g) against a sweep
# of Algorithm 1 as written (a launch per element), as in 2026-11-22-h200-phvm-paper.
#   bash bench/gpu/probe_check.sh      (about 3 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
TAILN=3 step probe 120 python3 -c "
import portgemm
from portgemm.runtime.probe import measure
for _ in range(3):
    print(measure(portgemm.select_device('gpu')))"
TAILN=4 step sweep 400 python3 -m portgemm.tune --model phvm --device gpu --sizes 5x5x30000000 \
  --sweep --reps 3 --param ELEMENT_LAUNCHES=1 --json "$out/sweep.json"
