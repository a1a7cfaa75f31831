#!/usr/bin/env bash
# GPU machine (device tool, carry [".whl"]): tallskinny's ROWVEC form, which auto takes on
# Intel's CPU runtime, built and checked on every device there (the H100/H200 and the
# machine's PoCL 5 CPU device), and timed against the lanes' form on that PoCL.
#   bash bench/gpu/rowvec_check.sh      (about 3 minutes)
set -uo pipefail
source bench/gpu/steps.sh  # $out, step
python3 -m portgemm.devices > "$out/devices.txt" 2>&1
TAILN=6 step pytest 420 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
  tests/test_tallskinny.py tests/test_wide.py
unset OPENBLAS_CORETYPE
TAILN=20 step pocl 240 python3 bench/rowvec.py --device pocl --against lanes --orders CC,CF
TAILN=12 step pocl-tall-c 300 python3 bench/rowvec.py --device pocl --against auto
