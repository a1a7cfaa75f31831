#!/usr/bin/env bash
# Device tool, carry [".whl"]: the weakest shapes of the survey of 2026-11-27 (seed 59,
# scale 5; bench/results/2026-11-27-h100-shallow/5-beyond/survey) beside other
# candidates, in turns beside cuBLAS (wgmma_lead.py, 3 rounds):
#   small64  float64 C of 400-800 values over K = 1e5-3e5 (49 x 13 x 177930 at 59% of
#            cuBLAS in xgemm's 16 x 16, split 128 ways): auto beside mma's 64 x 64 (the
#            deep-k entry), 128 x 16 and 16 x 128 tiles split by auto's model, and
#            tallskinny's own model
#   odd64    float64 C of 13 x 31 and the like over a deep K (64% in tallskinny's 8 x 8
#            tiles, short ones at both edges): auto beside the same tiles' counts of
#            groups doubled and mma's tiles
#   tall2    float32 C of 1-4 columns and 1000-5000 rows at K = 2e4-6.5e4 (1753 x 2 x
#            32722 at 71%, in tallskinny's tall tiles of 32 rows, 2 groups each): auto
#            beside 4, 8 and 16 groups a tile
#   after64  float64 deep-K C that auto ran in xgemm's 16 x 16 (C of 500-1024 values,
#            10-64 a side; and 1-16 x 64 at K = 4096): auto now (mma's tiles alone, the
#            padding unbounded) beside xgemm's 16 x 16 split by the model (auto's before),
#            mma's 128 x 16 and tallskinny's own model
#   waves    C of 1-8 columns in many tiles (tallskinny): auto beside groups enough for
#            2 and 4 rounds of the groups the device holds (MANY_TILE_ROUNDS), and none
#   many     the rule taken from waves (MANY_TILES, MANY_TILE_ROUNDS): tallskinny's model
#            now beside itself before (MANY_TILES 0) and auto, on C of 1-16 columns in
#            38-500 tiles, float32
#   tallish  C of 2-24 columns and 100-511 rows over a deep K (the deep-k class, split-K
#            tiles; 500 rows is under the skinny class's 512): auto beside tallskinny's
#            own model, float32 and float64 (1-8 columns)
#   final    the GPU tests of the changed paths (sharded_tests.sh) and bench/fuzz_auto.py
#            (seed $SEED, 7)
#   OUT=dir [PARTS="small64 odd64 tall2 after64 waves many tallish final"] bash bench/gpu/survey_weak.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
M='"variant": "mma", "KS": 2, "PAD": 4, "SUMS": 1, "BUFFERS": 2, "ASYNC_STAGES": 2, "KSPLIT": "model"'
MMA=(--candidate "m64x64={\"variant\": \"mma\", \"WM\": 2, \"WN\": 2, \"MT\": 2, \"NT\": 4, \"KS\": 1, \"PAD\": 4, \"SUMS\": 1, \"BUFFERS\": 2, \"ASYNC_STAGES\": 4, \"KSPLIT\": \"model\"}"
     --candidate "m128x16={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 2}"
     --candidate "m16x128={$M, \"WM\": 1, \"WN\": 4, \"MT\": 1, \"NT\": 4}")
T='"variant": "tallskinny", "model": true'
cd bench/gpu
if part small64; then
  TAILN=10 step small64 240 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/small64.json" \
    --candidate 'auto={"variant": "auto"}' "${MMA[@]}" --candidate "ts={$T}" \
    --shapes 49x13x177930,40x20x200000,33x17x300000,64x10x200000,24x30x300000,49x13x1000000
fi
if part odd64; then
  TAILN=10 step odd64 240 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/odd64.json" \
    --candidate 'auto={"variant": "auto"}' "${MMA[@]}" \
    --candidate "ts_gs2={$T, \"constants\": {\"portgemm.auto.tallskinny.IN_FLIGHT_PER_UNIT\": 60000}}" \
    --shapes 13x31x4431088,13x31x500000,11x29x3000000,21x19x2000000,15x23x2000000
fi
if part tall2; then
  TAILN=10 step tall2 240 python3 wgmma_lead.py --rounds 3 --json "$out/tall2.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "gs4={$T, \"GS\": 4}" \
    --candidate "gs8={$T, \"GS\": 8}" --candidate "gs16={$T, \"GS\": 16}" \
    --shapes 1753x2x32722,2000x2x65536,3000x3x20000,1000x1x65536,5000x1x20000,1753x4x32722
fi
X16='"variant": "xgemm", "MWG": 16, "NWG": 16, "KWG": 64, "MDIMC": 8, "NDIMC": 8, "VW": 4, "VWM": 2, "VWN": 2, "PAD": 1, "DOUBLE_BUFFER": 1, "KUNROLL": 16, "WARPN": 8, "ASYNC_STAGES": 0, "SWIZZLE": 1, "KSPLIT": "model"'
if part after64; then
  TAILN=14 step after64 240 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/after64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "x16={$X16}" \
    --candidate "m128x16={$M, \"WM\": 4, \"WN\": 1, \"MT\": 2, \"NT\": 2}" --candidate "ts={$T}" \
    --shapes 49x13x177930,64x10x200000,24x30x300000,13x49x177930,10x64x200000,30x30x300000,12x64x1048576,16x64x262144,64x13x500000,1x64x4096,2x64x4096,16x64x4096
fi
if part waves; then
  # the record's run (7-after) took a trial constant, MULTI_TILE_WAVES (2, 4; 0 off), in
  # place of the rule since kept, which asks for rounds only past compute units /
  # MANY_TILES tiles and not in a tall C of TALL_FROM columns; here its rounds
  W2="{$T, \"constants\": {\"portgemm.auto.tallskinny.MANY_TILE_ROUNDS\": 2}}"
  W0="{$T, \"constants\": {\"portgemm.auto.tallskinny.MANY_TILES\": 0}}"
  TAILN=16 step waves 300 python3 wgmma_lead.py --rounds 3 --json "$out/waves.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "off=$W0" --candidate "w2=$W2" --candidate "w4={$T}" \
    --shapes 1753x2x32722,2000x2x65536,3000x3x20000,5000x1x20000,1753x4x32722,1000x1x65536,8000x2x16384,4000x5x20000,3000x6x30000,2500x8x20000,600x3x100000,20000x1x8192,4096x2x4096
  TAILN=6 step waves64 200 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/waves64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "off=$W0" --candidate "w2=$W2" --candidate "w4={$T}" \
    --shapes 1753x2x32722,3000x3x20000,5000x1x20000,2500x8x20000
fi
if part many; then
  TAILN=20 step many 300 python3 wgmma_lead.py --rounds 3 --json "$out/many.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "now={$T}" \
    --candidate "before={$T, \"constants\": {\"portgemm.auto.tallskinny.MANY_TILES\": 0}}" \
    --shapes 1000x3x65536,1000x4x65536,500x8x65536,300x16x65536,2000x6x65536,4000x2x8192,8000x8x65536,2000x3x1048576,1000x8x1048576,4000x4x65536,8000x1x65536,4000x6x4096,1753x2x32722,3000x3x20000,8000x2x16384
fi
if part tallish; then
  TAILN=16 step tallish 200 python3 wgmma_lead.py --rounds 3 --json "$out/tallish.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "ts={$T}" \
    --shapes 500x8x65536,300x8x100000,200x4x100000,400x16x65536,256x12x65536,100x6x200000,480x20x50000,511x24x32768,128x8x262144,300x2x100000,450x3x65536,500x8x8192,300x16x8192
  TAILN=6 step tallish64 150 python3 wgmma_lead.py --dtype float64 --rounds 3 --json "$out/tallish64.json" \
    --candidate 'auto={"variant": "auto"}' --candidate "ts={$T}" \
    --shapes 500x8x65536,300x4x100000,200x8x100000,400x2x65536,128x6x262144
fi
if part final; then
  cd ../..
  TAILN=8 SHARDS=8 step tests 300 bash bench/gpu/sharded_tests.sh tests/test_fast_variants.py \
    tests/test_shipped_database.py tests/test_tallskinny.py
  TAILN=3 step fuzz 200 python3 bench/fuzz_auto.py --device gpu --cases 160 --seed "${SEED:-7}" --json "$out/fuzz.json"
fi
