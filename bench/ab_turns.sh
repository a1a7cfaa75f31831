#!/usr/bin/env bash
# auto before and after a change, in turn, one process each (a drifting host: compare only
# runs taken side by side). OLD is a checkout of the code before the change, e.g.
#   git worktree add /tmp/old HEAD~1
#   bash bench/ab_turns.sh /tmp/old OUT ROUNDS SIZES [DEVICE]   (run from this checkout)
#   python bench/ab_summary.py OUT
# Each process runs from its own tree, so it imports that tree's portgemm and kernels_cl.
set -uo pipefail
old=$(realpath "$1"); out=$(realpath "$2"); rounds=$3; sizes=$4; device=${5:-intel}
new=$PWD
unset OPENBLAS_CORETYPE  # the machine's setting halves OpenBLAS
for r in $(seq 1 "$rounds"); do
  for way in before after; do
    tree=$([ "$way" = before ] && echo "$old" || echo "$new")
    (cd "$tree" && python -m portgemm.bench --device "$device" --variant auto --sizes "$sizes" \
       --reps 5 --warmup 2 --no-clblast --no-progress --json "$out/ab-$way-$r.json" \
       > "$out/ab-$way-$r.txt" 2>&1)
    echo "round $r $way done"
  done
done
