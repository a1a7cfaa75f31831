#!/usr/bin/env bash
# Device tool, carry [".whl"]: tallskinny's split where C's edge cuts a tile short
# (tile_split.py --rule even-columns / even, --any-class: shapes auto routes elsewhere too,
# on tallskinny's own model), in turns against auto's split, float32 then float64, and
# the rows' form on C whose rows leave a short tile.
#   OUT=dir bash bench/gpu/tile_even.sh
set -uo pipefail
source bench/gpu/steps.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv \
  | tee "$out/gpu.txt"
cols() { python3 -c "print(','.join(f'{m}x{n}x{int(1.5e8 / (m + n))}' for m, n in ((1, 160), (1, 400), (1, 200), (1, 96), (1, 120), (1, 240), (2, 400), (2, 240), (4, 200), (4, 120))))"; }
cd bench/gpu
TAILN=12 step columns 240 python3 tile_split.py --rule even-columns --any-class --rounds 5 \
  --shapes "$(cols)" --json "$out/columns.json"
TAILN=5 step columns64 150 python3 tile_split.py --rule even-columns --any-class --rounds 5 \
  --dtype float64 --shapes 1x160x500000,1x400x300000,2x400x300000,1x96x1000000 --json "$out/columns64.json"
TAILN=6 step rows 150 python3 tile_split.py --rule even --any-class --rounds 5 \
  --shapes 10x13x2097152,12x20x1048576,21x12x1048576,32x6x1048576,20x13x1048576 --json "$out/rows.json"
