#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): wgmma reading one or two slabs ahead (LEAD)
# with the low TF32 parts left unrounded: the real instruction's tests, the two LEADs in
# turns beside cuBLAS, the rounding of the low parts against leaving it to the tensor
# cores, and a search of the tilings with LEAD at 4096. About 7 minutes.
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt"
TAILN=4 step pytest 150 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_wgmma.py -k "gpu or nvidia or h200 or capability"
cd bench/gpu
TAILN=8 step lead 200 python3 wgmma_lead.py --json "$out/lead.json" --candidates "lead 1,lead 2"
TAILN=3 step roundlo 100 python3 wgmma_ablate.py --params '{"LEAD": 2}' \
  --ablations none,roundlo,none,roundlo --json "$out/roundlo.json"
TAILN=16 step knobs 220 python3 knobs.py --variant wgmma --sizes 4096 --budget 180 \
  --json "$out/knobs.json" --space \
  '{"WGM": [1, 2], "WGN": [1, 2], "KS": [1, 2, 4], "LEAD": [1, 2], "WN": [64, 128], "PAD": [0]}'
