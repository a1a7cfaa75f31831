#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): tallskinny's one-group plan (C written in one
# launch) checked on every device there (the H100/H200 and the machine's PoCL 5 CPU
# device), and ROWVEC's one group for A and B within 1 MB against sweeps over the groups
# on that PoCL's 16 cores, wall time (the Zen 5 cannot compile PoCL's branches).
#   bash bench/gpu/one_group_check.sh      (about 5 minutes; the three files whole took over 300 s on PoCL)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
python3 -m portgemm.devices > "$out/devices.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/cpu.txt"
TAILN=6 step pytest-one-group 400 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
  tests/test_tallskinny.py tests/test_wide.py tests/test_auto_packing.py \
  -k "one_group or skinny_class or panel_keeps or rows_as_vectors or any_shape_and_layout"
unset OPENBLAS_CORETYPE
TAILN=80 step pocl-groups-wall 200 python3 bench/rowvec_groups.py --device pocl --wall \
  --rounds 10 --groups 1,2,4,16,64 \
  --sizes 8x8x16384,16x16x4096,3x3x40000,1x1x200000,4x4x65536,8x8x65536,16x16x32768 \
  --json "$out/pocl-groups-wall.json"
