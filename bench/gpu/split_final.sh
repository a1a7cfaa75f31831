# auto's split by columns and its groups a tile (2026-11-27) on the GPU: the tallskinny
# tests, then auto against the fewest-tiles rule of before in turns (its tiles with the
# groups today's model gives them), on the sweeps' shapes and on new ones, float32 and
# float64.
#   source .whl/setup.sh && OUT=dir bash bench/gpu/split_final.sh
set -u
out=${OUT:-.}
python3 -m pytest -q -rf --tb=line -p no:cacheprovider tests/test_tallskinny.py \
  tests/test_shipped_database.py 2>&1 | tail -4
cd bench/gpu
join() { local s=""; for x in "$@"; do s="$s${s:+,}${x}x1048576"; done; echo "$s"; }
fitted=$(join 11x12 32x6 9x16 10x16 6x32 5x32 7x32 3x64 64x3 41x6 30x5 6x24 16x16 8x32 20x10 9x24 21x12)
fresh=$(join 13x20 15x16 7x48 5x64 4x64 33x4 45x3 22x8 18x10 11x24 24x6 19x12 26x5 3x100 2x96 10x13)
for dtype in float32 float64; do
  for set in fitted fresh; do
    python3 tile_split.py --rule fewest --rounds 3 --dtype $dtype --shapes "${!set}" \
      --json "$out/final_${set}_$dtype.json" 2>&1 | grep -v "warning generated"
  done
done
