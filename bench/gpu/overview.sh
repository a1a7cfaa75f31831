#!/bin/bash
# One look at auto across shapes on the GPU (device tool, carry [".whl"]): vec's layers
# along K on the GPU's compiler, then python -m portgemm.bench --variant auto beside
# cuBLAS and CLBlast on squares, primes, skinny, tall-skinny and deep-K shapes.
#   source .whl/setup.sh && bash bench/gpu/overview.sh
#   DTYPES="float32 float64" SKIP_TESTS=1 bash bench/gpu/overview.sh   # both types, no tests
#   EXTRA_SIZES=16384x64x4096,... adds shapes to the list
source bench/gpu/steps.sh
[ -n "${SKIP_TESTS:-}" ] || step pytest_vec 300 python3 -m pytest -q -x tests/test_fast_variants.py tests/test_auto_packing.py -k "gpu and (vec or split or auto)"
for dtype in ${DTYPES:-float32}; do
suffix=$([ "$dtype" = float32 ] || echo "-$dtype")
TAILN=40 step "overview$suffix" ${OVERVIEW_LIMIT:-500} python3 -m portgemm.bench --device gpu --variant auto --no-progress \
    --dtype "$dtype" --reps 10 --json "$out/overview$suffix.json" --sizes \
    128,256,512,1000,1024,2048,4096,8192,127x131x137,1x4096x4096,4096x4096x1,4096x1x4096,16x4096x4096,4096x16x4096,100x5000x50,2000x2000x64,64x64x65536,33x4096x1000,8192x2x8192,50000x8x1024,3000x200x3000,48x3000x2000,8x8x4194304,1024x1024x16384${EXTRA_SIZES:+,$EXTRA_SIZES}
done
