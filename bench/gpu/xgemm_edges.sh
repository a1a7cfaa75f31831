#!/usr/bin/env bash
# Device tool, carry [".whl", "build/before"] (build/before from `git archive BASE
# portgemm kernels_cl`): xgemm's loads past C's edge (2026-11-27), the tests of xgemm on
# the GPU, then xgemm's 64 x 64 tile (the small-class entry's, split by auto's model)
# before and after as whole processes in turns (before, after, before, after), each
# beside wgmma's 64 x 64 tile as the control, on C of 24-200 a side over a deep K (where
# it ran 1.6-3x slower than the control) and on shallower shapes.
#   OUT=dir bash bench/gpu/xgemm_edges.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
TAILN=3 step tests 300 python3 -m pytest -q -x -p no:cacheprovider tests/test_correctness.py \
  tests/test_fast_variants.py -k "gpu and xgemm"
X='"variant": "xgemm", "MWG": 64, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 4, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8, "ASYNC_STAGES": 0, "SWIZZLE": 1, "KSPLIT": "model"'
W='"variant": "wgmma", "KS": 2, "PAD": 0, "LEAD": 2, "WGN": 1, "WGM": 1, "WN": 64, "KSPLIT": "model"'
shapes=${SHAPES:-48x48x2604166,43x75x1860465,54x52x2136752,40x200x750000,60x100x1000000,24x40x6250000,80x80x937500,64x64x1464843,33x64x2840909,1000x1000x1000,2000x2000x2000,127x131x137,500x300x4000}
root=$PWD
for turn in 1 2; do for side in before after; do
  path=$root; [ $side = before ] && path=$root/build/before
  TAILN=2 PYTHONPATH=/tmp/site:$path step "edges_${side}_$turn" 250 python3 bench/gpu/wgmma_lead.py \
    --rounds 2 --shapes "$shapes" --json "$out/edges_${side}_$turn.json" \
    --candidate "x64={$X}" --candidate "control={$W}"
done; done
