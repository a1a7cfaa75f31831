#!/bin/bash
# tallskinny at short K (issue 9: K = 2^21, M = N <= 9), device tool, carry
# [".whl", "build/before"] (build/before from `git archive BASE portgemm kernels_cl`):
#   tests   tests/test_tallskinny.py on the GPU
#   shapes  shapes.py's tall-skinny goals beside the copy bandwidth (h200: on an H200 only)
#   fence   the ticket as shipped against the form to 2026-11-26 (everyfence: membar.gl by
#           every work-item before the group's barrier and by the last group after it),
#           tallskinny_ablate.py, each form three times in turn. (Before the kernel took
#           one acquire-release atomic, the ablations acqrel and onefence: abe0c9e's
#           tallskinny_ablate.py, with the kernel before then.)
#   counts  group_counts.py: auto's groups against the bound of MIN_TERMS steps a
#           work-item, in turns in one process (float32, float64)
#   gs      the device's probe (cached: auto then takes its bandwidth), then group_counts.py
#           over GS 64 / 132 / 264 (16 x 16: 16 / 32 / 64) at K = 2^21 and 2^25
#   floor   the probe again, then group_counts.py where at least a group a compute unit
#           between C's tiles moves auto's count: float64 single tiles, 12 x 12 and
#           16 x 16 (3 and 4 tiles), 1 x 16 and 16 x 3, and auto's probed choice at
#           5 x 5 to 9 x 9; then shapes.py's goals (auto on the probed bandwidth)
#   after   shapes.py's goals with no probe yet (auto on the assumed 4 TB/s), the probe, the
#           goals again (auto on the probed bandwidth), then group_counts.py where the
#           bound of MIN_TERMS lies between whole waves (183 and 170 groups)
#   tiles   the probe, then group_counts.py where the probed bandwidth still halves auto's
#           count: tall C of several tiles, and one tile of 8 x 12 at K = 2^20
#   final   the tests (a longer limit), the probe, the goals (auto now the same with and
#           without it), and group_counts.py where the probe had halved the count and
#           where one tile's count had been a second round of groups
#   split   tile_split.py: a C too big for one tile, split for the fewest loads a step
#           against the fewest tiles (float32, then float64)
#   splits  tile_split.py over more of the splits the rule of fewest loads moves (after the
#           first, 3.5% ... 61% fewer loads a step), float32 and float64
#   regs    kernel_registers.py: the registers ptxas builds tallskinny's tiles of several-
#           tile C to (float32, KU 2, groups of 512), the fast splits and the slow
#   waves   the same as auto before and after in turns of whole processes (steps.sh),
#           beside a fixed tallskinny as the control: on 20-40 us kernels the drift between
#           processes (the control's 0.88-1.16x) swamped it
#   spread  wgmma_lead.py: tallskinny's model as shipped (auto: a K too short for its
#           groups to reach half the compute units at MIN_TERMS steps a work-item is spread
#           in smaller groups, down to SPREAD_GROUP = 32) against the same model with its
#           constants set otherwise: SPREAD_GROUP 1024 (the model before 2026-11-27's
#           spread), 64, 128, MIN_TERMS 8 and 4; float32 and float64; then one-row C beside
#           the wide kernel's model
# Each part ran with the tree of its record's section (bench/results/2026-11-27-h100-short-k):
# auto read the probe's bandwidth until 88838ee, and split and splits ran the candidate
# split as auto (59d308e; tile_split.py now times it beside auto as "loads").
#   PARTS="tests fence counts" bash bench/gpu/short_k.sh
source bench/gpu/steps.sh
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
if part tests; then
  TAILN=4 step tests 300 python3 -m pytest -q -rf --tb=line -p no:cacheprovider tests/test_tallskinny.py
fi
if part shapes || { part h200 && [[ $name == *H200* ]]; }; then
  (cd bench/gpu && TAILN=20 step shapes 200 python3 shapes.py --json "$out/shapes.json")
fi
if part fence; then
  (cd bench/gpu && TAILN=14 step fence 240 python3 tallskinny_ablate.py --k 2097152 --k 33554432 \
    --ablations none,everyfence,none,everyfence,none,everyfence --json "$out/fence.json")
fi
if part counts; then
  (cd bench/gpu && TAILN=12 step counts 200 python3 group_counts.py --rounds 5 --json "$out/counts.json"
   TAILN=5 step counts64 100 python3 group_counts.py --rounds 5 --dtype float64 \
     --shapes 8x8x524288,5x5x1048576,2x2x2097152,3x3x1500000 --json "$out/counts64.json")
fi
probe() { TAILN=3 step probe 120 python3 -c "import portgemm
from portgemm.runtime.probe import probe
print(probe(portgemm.select_device('gpu'), fresh=True))"; }
if part gs; then
  (cd bench/gpu
   probe
   TAILN=12 step gs 400 python3 group_counts.py --rounds 5 --gs 64,132,264 --json "$out/gs.json" \
     --shapes 3x3x2097152,5x5x2097152,7x7x2097152,8x8x2097152,9x9x2097152,3x3x33554432,5x5x33554432,8x8x33554432,9x9x33554432
   TAILN=4 step gs16 150 python3 group_counts.py --rounds 5 --gs 16,32,64 --json "$out/gs16.json" \
     --shapes 16x16x2097152,16x16x33554432)
fi
if part floor; then
  (cd bench/gpu
   probe
   TAILN=7 step floor64 200 python3 group_counts.py --rounds 5 --dtype float64 --gs 64,132,264 \
     --shapes 3x3x2097152,6x6x2097152,8x8x2097152,5x5x16777216,8x8x16777216 --json "$out/floor64.json"
   TAILN=6 step floor_tiles 200 python3 group_counts.py --rounds 5 --gs 32,33,44,64 \
     --shapes 16x16x2097152,16x16x33554432,12x12x2097152,12x12x33554432 --json "$out/floor_tiles.json"
   TAILN=8 step floor32 200 python3 group_counts.py --rounds 5 --gs 64,132 --json "$out/floor32.json" \
     --shapes 1x16x2097152,1x16x33554432,16x3x2097152,5x5x2097152,8x8x2097152,9x9x2097152,7x7x2097152
   TAILN=20 step shapes 200 python3 shapes.py --json "$out/shapes.json")
fi
if part after; then
  (cd bench/gpu
   TAILN=3 step shapes_assumed 200 python3 shapes.py --json "$out/shapes_assumed.json"
   probe
   TAILN=3 step shapes_probed 200 python3 shapes.py --json "$out/shapes_probed.json"
   TAILN=4 step nearest 150 python3 group_counts.py --rounds 5 --gs 170,183,264 \
     --shapes 1x1x3000000,2x2x3000000,10x10x700000 --json "$out/nearest.json")
fi
if part tiles; then
  (cd bench/gpu
   probe
   TAILN=4 step tiles_small 150 python3 group_counts.py --rounds 5 --gs 2,4,8 \
     --shapes 1000x12x4096,1000x16x8192,1000x12x65536 --json "$out/tiles_small.json"
   TAILN=3 step tiles_32 150 python3 group_counts.py --rounds 5 --gs 32,64 \
     --shapes 32x6x1048576,32x6x8388608 --json "$out/tiles_32.json"
   TAILN=3 step tiles_one 150 python3 group_counts.py --rounds 5 --gs 132,264 \
     --shapes 8x12x1048576,1x1x8388608 --json "$out/tiles_one.json")
fi
if part final; then
  TAILN=4 step tests_final 500 python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    tests/test_tallskinny.py tests/test_shipped_database.py
  (cd bench/gpu
   probe
   TAILN=3 step shapes_final 200 python3 shapes.py --json "$out/shapes_final.json"
   TAILN=9 step counts_final 200 python3 group_counts.py --rounds 5 --gs 2,32,132,264 \
     --shapes 32x6x1048576,1000x12x65536,1000x16x8192,8x12x1048576,10x10x700000,1x1x8388608 \
     --json "$out/counts_final.json")
fi
if part split; then
  (cd bench/gpu
   TAILN=11 step split 300 python3 tile_split.py --rounds 5 --json "$out/split.json"
   TAILN=5 step split64 200 python3 tile_split.py --rounds 5 --dtype float64 \
     --shapes 32x6x1048576,6x32x1048576,64x3x1048576,12x12x1048576 --json "$out/split64.json")
fi
if part splits; then
  (cd bench/gpu
   TAILN=16 step splits 300 python3 tile_split.py --rounds 5 --json "$out/splits.json" \
     --shapes 16x16x2097152,16x16x33554432,3x64x1048576,3x48x1048576,6x24x1048576,7x32x1048576,8x32x1048576,9x16x1048576,10x16x1048576,11x12x1048576,16x12x1048576,17x8x1048576,21x12x1048576,6x40x1048576
   TAILN=12 step splits64 250 python3 tile_split.py --rounds 5 --dtype float64 --json "$out/splits64.json" \
     --shapes 3x64x1048576,6x32x1048576,6x42x1048576,7x32x1048576,9x24x1048576,11x12x1048576,16x12x1048576,17x8x1048576,21x12x1048576,41x6x1048576)
fi
if part regs; then
  args=()
  for tile in 11x5 4x12 7x9 4x16 9x7 3x16 10x6 8x8 6x10 5x10 32x2 8x6 21x3 9x6 1x64 2x32; do
    args+=(--candidate "$tile={\"variant\": \"tallskinny\", \"tile_y\": ${tile%x*}, \"tile_x\": ${tile#*x}, \"BS\": 512, \"GS\": 32, \"KU\": 2, \"REDUCE\": 1, \"FUSE\": 1}")
  done
  (cd bench/gpu && TAILN=40 step regs 200 python3 kernel_registers.py --dtype float32 "${args[@]}")
fi
if part waves; then
  control='"variant": "tallskinny", "GS": 132, "BS": 512, "tile_y": 9, "tile_x": 9, "REDUCE": 1, "FUSE": 1'
  turns waves float32 3x3x2097152,5x5x2097152,4x4x2097152,3x3x1500000,5x5x1200000,1x1x1800000,8x8x1048576,7x7x700000,2x2x4194304 "$control"
  turns waves64 float64 8x8x524288,5x5x1048576,2x2x2097152 "$control"
fi
if part spread; then
  ts='"variant": "tallskinny", "model": true'
  k='portgemm.auto.tallskinny'
  spread=(--candidate 'auto={"variant": "auto"}'
          --candidate "before={$ts, \"constants\": {\"$k.SPREAD_GROUP\": 1024}}"
          --candidate "s64={$ts, \"constants\": {\"$k.SPREAD_GROUP\": 64}}"
          --candidate "s128={$ts, \"constants\": {\"$k.SPREAD_GROUP\": 128}}"
          --candidate "t8={$ts, \"constants\": {\"$k.MIN_TERMS\": 8}}"
          --candidate "t4={$ts, \"constants\": {\"$k.MIN_TERMS\": 4}}")
  (cd bench/gpu
   TAILN=24 step spread 330 python3 wgmma_lead.py --rounds 3 --json "$out/spread.json" "${spread[@]}" \
     --shapes 1x64x65536,1x64x262144,1x16x65536,1x256x100000,3x3x8192,3x3x65536,3x3x262144,8x8x16384,8x8x65536,8x8x262144,9x9x131072,16x16x65536,16x16x262144,1x160x65536,2x160x65536,8x160x65536,32x6x65536,5x5x500000,3x3x2097152
   TAILN=5 step spread64 150 python3 wgmma_lead.py --rounds 3 --dtype float64 --json "$out/spread64.json" "${spread[@]}" \
     --shapes 1x64x65536,3x3x131072,8x8x65536,8x8x262144
   TAILN=8 step spread_wide 150 python3 wgmma_lead.py --rounds 3 --json "$out/spread_wide.json" \
     --candidate 'auto={"variant": "auto"}' --candidate "before={$ts, \"constants\": {\"$k.SPREAD_GROUP\": 1024}}" \
     --candidate 'wide={"variant": "wide", "model": true}' \
     --shapes 1x64x65536,1x64x262144,1x16x65536,1x256x100000,1x160x65536,2x160x65536)
fi
