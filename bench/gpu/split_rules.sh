# tallskinny's splits of C: auto's, the columns rule (tile_split.py's column_split) and
# every split near the fewest tiles, on shapes the rule was not fitted to (float32) and
# on float64.
#   source .whl/setup.sh && OUT=dir bash bench/gpu/split_rules.sh
set -u
cd "$(dirname "$0")"
out=${OUT:-.}
join() { local s=""; for x in "$@"; do s="$s${s:+,}${x}x1048576"; done; echo "$s"; }
python3 tile_split.py --rule columns --near --rounds 3 --json "$out/rules_f32.json" \
  --shapes "$(join 13x14 15x20 18x16 24x24 7x40 5x48 4x36 3x56 2x80 30x5 40x5 50x4 27x3 48x6 25x10 14x9 20x7 36x8 9x40 12x32 6x64)" \
  2>&1 | grep -v "warning generated"
python3 tile_split.py --rule columns --near --rounds 3 --dtype float64 --json "$out/rules_f64.json" \
  --shapes "$(join 11x12 12x12 16x12 9x24 17x12 21x12 6x32 3x64 9x16 16x16 32x6 5x32 8x32 7x20 20x10 41x6)" \
  2>&1 | grep -v "warning generated"
