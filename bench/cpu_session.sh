#!/usr/bin/env bash
# CPU record of issue 10 (and the CPU goals of issues 7 and 9) on the machine at hand, one
# command after another so that no two timings share the cores:
#   bash bench/cpu_session.sh bench/results/DATE-cpu-NAME      (about 30 minutes, 2 cores)
#   ONLY="step names" bash bench/cpu_session.sh FOLDER     runs just those steps
# Tunings go to databases inside the folder (never to the user's), each bench names the
# database it reads through PORTGEMM_TUNING_DB ("none": no database at all, the model).
set -uo pipefail
out=${1:?result folder}; mkdir -p "$out"
unset OPENBLAS_CORETYPE  # the machine's setting halves OpenBLAS
export PYTHONUNBUFFERED=1
py=${PYTHON:-python}
step() { local name=$1; shift
         if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi; echo "=== $name: $*"; { echo "\$ $*"; /usr/bin/time -f "wall %e s" "$@"; } \
           > "$out/$name.txt" 2>&1; tail -n "${TAILN:-6}" "$out/$name.txt"; }
bench=($py -m portgemm.bench --no-progress --reps 5 --warmup 2)
{ lscpu | grep -E "Model name|^CPU\(s\)"; echo "SIMD: $(grep -o 'avx[0-9a-z_]*\|fma' /proc/cpuinfo | sort -u | tr '\n' ' ')";
  $py -m portgemm.devices;
  $py -c "import numpy; numpy.show_config()" 2>&1 | grep -iE "name|version|core" | head; } > "$out/machine.txt" 2>&1

# 1. tunings: a long one and --quick per driver (quick: the family and start auto would take)
TAILN=4 step pocl-long-tune $py -m portgemm.tune --device pocl --variant vec --sizes 1024 \
  --strategy exhaustive --budget 420 --reps 3 --no-progress --no-cache --top 8 \
  --database "$out/pocl-long.json" --level name
TAILN=4 step pocl-long-tune-2048 $py -m portgemm.tune --device pocl --variant vec --sizes 2048 \
  --strategy model --budget 300 --reps 3 --no-progress --no-cache --top 8 \
  --database "$out/pocl-long.json" --level name
TAILN=4 step pocl-quick-tune $py -m portgemm.tune --quick --device pocl --no-cache \
  --database "$out/pocl-quick.json" --level name
TAILN=4 step intel-long-tune $py -m portgemm.tune --device intel --variant panel --sizes 2048 \
  --strategy exhaustive --only tile_y=4,6,8 --only tile_x=2,3,4,6 --only KC=128,256,384,512 \
  --only MB=128,256,512 --restrict 'tile_y*tile_x<=24 and tile_y*tile_x>=16' --reps 3 \
  --no-progress --no-cache --top 8 --database "$out/intel-long.json" --level name
TAILN=4 step intel-quick-tune $py -m portgemm.tune --quick --device intel --no-cache \
  --database "$out/intel-quick.json" --level name

# 2. auto by where its configuration comes from, numpy (and CLBlast) in the same run
TAILN=12 step intel-auto-shipped "${bench[@]}" --device intel --variant auto --sizes 1024,2048,4096 --json "$out/intel-auto-shipped.json"
TAILN=8 step intel-auto-model env PORTGEMM_TUNING_DB=none "${bench[@]}" --device intel --variant auto --sizes 1024,2048 --no-clblast
TAILN=8 step intel-auto-quick env PORTGEMM_TUNING_DB="$out/intel-quick.json" "${bench[@]}" --device intel --variant auto --sizes 1024,2048 --no-clblast
TAILN=8 step pocl-auto-model env PORTGEMM_TUNING_DB=none "${bench[@]}" --device pocl --variant auto --sizes 1024,2048 --json "$out/pocl-auto-model.json"
TAILN=8 step pocl-auto-quick env PORTGEMM_TUNING_DB="$out/pocl-quick.json" "${bench[@]}" --device pocl --variant auto --sizes 1024,2048 --no-clblast
TAILN=8 step pocl-auto-long env PORTGEMM_TUNING_DB="$out/pocl-long.json" "${bench[@]}" --device pocl --variant auto --sizes 1024,2048 --no-clblast

# the same configurations side by side in one process (a shared machine drifts between runs)
TAILN=12 step pocl-sources $py bench/sources.py --device pocl --sizes 1024,2048 \
  --db quick="$out/pocl-quick.json" --db long="$out/pocl-long.json"
TAILN=12 step intel-sources $py bench/sources.py --device intel --sizes 1024,2048 \
  --db quick="$out/intel-quick.json" --db long="$out/intel-long.json"

# 3. the threaded host path, call overhead, first call of a new process
TAILN=10 step threads $py bench/host_threads.py --sizes 2048
TAILN=4 step overhead-intel $py bench/overhead.py --device intel --reps 1000
TAILN=4 step overhead-pocl $py bench/overhead.py --device pocl --reps 1000
TAILN=4 step overhead-intel-naive $py bench/overhead.py --device intel --reps 1000 --variant naive
TAILN=4 step overhead-pocl-naive $py bench/overhead.py --device pocl --reps 1000 --variant naive
TAILN=6 step first-call $py bench/first_call.py --device intel,pocl --size 256 --runs 5
TAILN=6 step first-call-no-program-cache env PORTGEMM_PROGRAM_CACHE=off $py bench/first_call.py --device intel,pocl --size 256 --runs 5

# 4. issue 9 on the Intel runtime: tall-skinny and deep K beside numpy (wall), the model's GS/BS
TAILN=8 step intel-tallskinny "${bench[@]}" --device intel --variant auto --sizes 8x8x4194304,3x3x8388608,1024x1024x16384 --no-clblast --json "$out/intel-tallskinny.json"
TAILN=8 step intel-tallskinny-sweep $py -m portgemm.tune --model tallskinny --device intel --sizes 8x8x4194304,3x3x8388608 --sweep --reps 3 --rounds 5 --json "$out/intel-tallskinny-sweep.json"
