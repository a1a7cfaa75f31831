#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): ROWVEC's rows of several vectors (a wide C on
# a CPU) checked on every device there (the H100/H200, whose paths do not use them, and
# the machine's PoCL 5 CPU device, whose branches the Zen 5 cannot compile), then timed
# on that PoCL's 16 cores: tiles of one vector a row against several, and the bandwidth
# model's route for tall-skinny shapes of a wide C.
#   bash bench/gpu/wide_rows_check.sh      (about 6 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
python3 -m portgemm.devices > "$out/devices.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/cpu.txt"
TAILN=6 step pytest 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
  tests/test_tallskinny.py -k "several or stop_at_the_end or any_shape or rows_as_vectors"
for tiles in "1x4096x4096 1x16,1x64,1x256" "4x4096x4096 4x16,4x64,4x112" \
             "1x200x100000 1x16,1x64,1x200" "16x4096x4096 16x16,8x16,8x48"; do
  set -- $tiles
  TAILN=6 step "pocl-tiles-$1" 120 python3 bench/rowvec_tiles.py --device pocl --size "$1" \
    --tiles "$2" --rounds 3
done
