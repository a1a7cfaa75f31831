#!/usr/bin/env bash
# Device tool: the whole test suite on the GPU in one call, its files spread over WORKERS
# pytest processes (pytest-xdist), since a fresh machine compiles every kernel anew and
# one process outlasts a call; then issue 9's tall-skinny shapes and the stacks beside
# torch. Wheels (here): bash ../shared/tools/device-wheels.sh pytest-xdist==3.8.0 execnet==2.1.2
#   carry [".whl"]:  OUT=dir [PARTS="tests tall stacks"] [WORKERS=8] [TESTS="tests/"] bash bench/gpu/suite.sh
# TESTS splits the suite over two calls where one does not hold it (the whole took 479 s
# of a 600 s call at -n 8): TESTS="tests/test_[a-m]*.py", then "tests/test_[n-z]*.py".
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  TAILN=14 step tests "${TESTS_LIMIT:-450}" python3 -m pytest -q -rf --tb=short \
    -p no:cacheprovider -n "${WORKERS:-8}" --durations=10 ${TESTS:-tests/}
fi
if part tall; then
  (cd bench/gpu && TAILN=8 step tall 100 python3 shapes.py --only tall --json "$out/shapes_tall.json")
fi
if part stacks; then
  for dtype in ${DTYPES:-float32}; do
    TAILN=11 step "stacks_$dtype" 90 python3 bench/stacks.py --device gpu --rounds 3 \
      --dtype "$dtype" --json "$out/stacks_$dtype.json"
  done
fi
