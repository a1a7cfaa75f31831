# tallskinny's AHEAD (the next steps' loads before this step's products) beside the
# kernel as auto builds it, at the splits of C where ptxas left loads beside their
# products (8 x 6, 11 x 5, 12 x 4, 12 x 5 on the H100) and at fast ones, float32.
# AHEAD was reverted (fe27c80): run it at cc06f41.
#   git checkout cc06f41 && source .whl/setup.sh && OUT=dir bash bench/gpu/loads_ahead.sh
set -u
cd "$(dirname "$0")"
out=${OUT:-.}
run() {  # name shapes tiles
  python3 tile_split.py --rule vectors --vary AHEAD=1,KU=1 --vary AHEAD=1,KU=2 --rounds 3 --shapes "$2" --tiles "$3" \
    --json "$out/ahead_$1.json" 2>&1 | grep -v "warning generated"
}
run a 32x6x1048576,41x6x1048576 8x6,9x6,16x4
run b 11x12x1048576,12x12x1048576 11x5,12x4,12x5,4x12,6x8
run c 8x32x1048576,6x32x1048576,5x32x1048576 4x16,2x32,6x8
run d 3x64x1048576,64x3x1048576 2x32,16x3,19x3
run e 9x16x1048576,16x16x2097152 9x7,6x8,8x8
run f 3x3x2097152,8x8x2097152,5x5x33554432 ""
