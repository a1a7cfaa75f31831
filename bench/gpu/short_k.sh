#!/bin/bash
# tallskinny at short K (issue 9: K = 2^21, M = N <= 9), device tool, carry
# [".whl", "build/before"] (build/before from `git archive BASE portgemm kernels_cl`):
#   h200    on an H200 only: shapes.py's tall-skinny goals beside the copy bandwidth
#   fence   the ticket's fences (membar.gl by every work-item, as shipped) against one
#           acquire-release atomic, and against membar.gl by the ticket's work-item
#           alone: tallskinny_ablate.py, each form twice in turn
#   waves   auto before and after in turns (steps.sh): groups rounded up to whole waves
#           after the bound of MIN_TERMS, beside a fixed tallskinny as the control
#   PARTS="fence waves" bash bench/gpu/short_k.sh
source bench/gpu/steps.sh
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part h200 && [[ $name == *H200* ]]; then
  (cd bench/gpu && TAILN=20 step shapes 200 python3 shapes.py --json "$out/shapes.json")
fi
if part fence; then
  (cd bench/gpu && TAILN=14 step fence 240 python3 tallskinny_ablate.py --k 2097152 --k 33554432 \
    --ablations none,acqrel,onefence,none,acqrel,onefence --json "$out/fence.json")
fi
if part waves; then
  control='"variant": "tallskinny", "GS": 132, "BS": 512, "tile_y": 9, "tile_x": 9, "REDUCE": 1, "FUSE": 1'
  turns waves float32 3x3x2097152,5x5x2097152,4x4x2097152,3x3x1500000,5x5x1200000,1x1x1800000,8x8x1048576,7x7x700000,2x2x4194304 "$control"
  turns waves64 float64 8x8x524288,5x5x1048576,2x2x2097152 "$control"
fi
