#!/usr/bin/env bash
# Device tool, carry [".whl"]: forms of tallskinny's kernel (FUSE 1) timed in turns in one
# process (tallskinny_ablate.py; its docstring names each form) at K = 2^21 and 2^25,
# then issue 9's tall-skinny goals (shapes.py) with the kernel as shipped.
#   OUT=dir [FORMS=none,single,...] [SIZES=3,5,7,8,9,16] [PTX=1] [GOALS=0] bash bench/gpu/tall_forms.sh
# PTX=1 also writes each form's PTX (K = 2^21) into $OUT/ptx.tar.gz, for sass_loops.py.
# 2026-11-28 (bench/results/2026-11-28-tall-forms):
#   FORMS=none,single,batch16,batch24,smallbatch4       the last group's slice loads
#   FORMS=none,single,clamped,single+clamped PTX=1      and tiles whole in C (a source since dropped: see the record)
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
forms=${FORMS:-none,single}
ptx=(); [ -n "${PTX:-}" ] && ptx=(--ptx-dir /tmp/ptx)
(cd bench/gpu
 TAILN=14 step forms 420 python3 tallskinny_ablate.py --k 2097152 --k 33554432 \
   --sizes "${SIZES:-3,5,7,8,9,16}" --ablations "$forms,$forms,$forms" --json "$out/forms.json" "${ptx[@]}"
 [ "${GOALS:-1}" = 1 ] && TAILN=20 step shapes 150 python3 shapes.py --only tall --json "$out/shapes.json")
[ -n "${PTX:-}" ] && tar -czf "$out/ptx.tar.gz" -C /tmp ptx
true
