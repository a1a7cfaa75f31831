#!/usr/bin/env bash
# Device tool, carry [".whl", "build/before"]: stacks through matmul (bench/stacks.py,
# torch beside) for the code before (build/before: `git archive BASE portgemm kernels_cl
# | tar -x -C build/before`) and after, as whole processes in turns: before, after,
# before, after.   OUT=dir [SHAPES=A@B,...] bash bench/gpu/stack_turns.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
shapes=${SHAPES:-64x2x1000@64x1000x50,256x30x70@256x70x30,100x37x50@100x50x20,16x200x70@16x70x150,64x8x4096@64x4096x8,8x4096@128x4096x8,1000x3x2048@1000x2048x3,64x128x128@64x128x128}
for turn in 1 2; do for side in before after; do
  path=$PWD; [ $side = before ] && path=$PWD/build/before
  TAILN=12 PYTHONPATH=/tmp/site:$path step "stacks_${side}_$turn" 200 python3 bench/stacks.py \
    --device gpu --rounds 3 --shapes "$shapes" --json "$out/stacks_${side}_$turn.json"
done; done
