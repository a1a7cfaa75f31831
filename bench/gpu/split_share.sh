# tallskinny's several-tile C under auto's split by columns (2026-11-27): auto's groups a
# tile (the largest power of two up to 132 // tiles, or more for the bandwidth) beside
# exactly 132 // tiles (--vary GS=...), and the fewest-tiles rule of before, in turns.
#   source .whl/setup.sh && OUT=dir bash bench/gpu/split_share.sh
set -u
cd "$(dirname "$0")"
out=${OUT:-.}
join() { local s=""; for x in "$@"; do s="$s${s:+,}${x}"; done; echo "$s"; }
run() {  # name dtype groups shapes...
  local name=$1 dtype=$2 gs=$3; shift 3
  python3 tile_split.py --rule fewest --rounds 3 --dtype "$dtype" --shapes "$(join "$@")" \
    --vary "GS=$gs" --json "$out/share_$name.json" 2>&1 | grep -v "warning generated"
}
K=x1048576
run 6t float32 22 9x24$K 12x20$K 10x20$K 40x5$K
run 5t float32 26 6x40$K 21x12$K 41x6$K
run 4t float32 33 16x16$K 9x16$K 5x32$K 6x32$K 32x6$K 3x64$K 8x32$K 30x5$K 32x6x8388608
run 3t float32 44 11x12$K 7x20$K 8x20$K 3x48$K 6x24$K 11x12x8388608
run 6t64 float64 22 9x24$K 12x20$K
run 5t64 float64 26 21x12$K 41x6$K 6x40$K
run 4t64 float64 33 16x16$K 9x16$K 5x32$K 6x32$K 32x6$K 3x64$K 8x32$K
run 3t64 float64 44 11x12$K 7x20$K 6x24$K
