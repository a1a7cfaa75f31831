#!/bin/bash
# The skinny class on the GPU (device tool, carry [".whl"]): the wide kernel's and the
# routing's tests on the GPU, then bench/gpu/skinny.py with its sweep.
#   source .whl/setup.sh && bash bench/gpu/skinny.sh
source bench/gpu/steps.sh
step pytest_skinny 240 python3 -m pytest -q -x tests/test_wide.py \
    "tests/test_correctness.py" -k "gpu and (wide or skinny or tallskinny)"
cd bench/gpu && step skinny 420 python3 skinny.py --json "$out/skinny.json" --sweep
