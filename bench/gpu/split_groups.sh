# tallskinny's several-tile splits with smaller groups (BS 256 / 128, GS scaled to keep
# the work-items a tile; a group of 512 caps ptxas at 128 registers a work-item) and with
# one step loaded at a time, beside auto's, float32.
#   source .whl/setup.sh && OUT=dir bash bench/gpu/split_groups.sh
set -u
cd "$(dirname "$0")"
out=${OUT:-.}
run() {  # name shapes tiles
  python3 tile_split.py --rule vectors --rounds 3 --shapes "$2" --tiles "$3" \
    --vary BS=256 --vary BS=128 --vary KU=1 --json "$out/groups_$1.json" 2>&1 \
    | grep -v "warning generated"
}
run a 32x6x1048576,41x6x1048576 8x6,9x6,16x4
run b 11x12x1048576,12x12x1048576 11x5,12x4,4x12,6x8
run c 5x32x1048576,8x32x1048576 5x12,6x8,4x16
run d 9x16x1048576,16x16x2097152 9x7,6x8,8x8
run e 7x20x1048576,8x20x1048576,6x40x1048576 7x8,3x20,8x8,6x8
