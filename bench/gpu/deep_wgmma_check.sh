#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): the record of this change -- auto (wgmma's
# medium and deep-K entries, tallskinny's whole waves and relaxed loads) on the goals'
# shapes beside cuBLAS and the copy bandwidth; the last group's loads as shipped against
# one at a time (the record's third/batch8.txt ran when the kernel batched eight for every
# tile). About 8 minutes.
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt"
TAILN=4 step pytest 120 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_shipped_database.py tests/test_wgmma.py -k "gpu or nvidia or h200 or capability"
cd bench/gpu
TAILN=12 step goals 100 python3 goals.py --json "$out/goals.json"
TAILN=4 step shapes 160 python3 shapes.py --json "$out/shapes.json"
TAILN=4 step auto_more 60 python3 wgmma_split.py --quick --set medium --set waves \
  --json "$out/auto_more.json"
parts=(python3 tallskinny_parts.py --k 2097152 --k 33554432 --sizes 3,5,8,9 --modes 11
       --configs 132x512,132x1024,264x512)
TAILN=2 step batch8 70 "${parts[@]}" --json "$out/batch8.json"
sed -i 's/^#define SLICE_BATCH .*/#define SLICE_BATCH 1/' ../../kernels_cl/tallskinny.cl
TAILN=2 step batch1 70 "${parts[@]}" --json "$out/batch1.json"
