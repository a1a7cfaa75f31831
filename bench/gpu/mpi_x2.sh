#!/usr/bin/env bash
# Two-GPU machine (device tool, kind nvidia-h200-x2), issue 12: distributed GEMM over MPI,
# one rank per GPU (rank i on gpu:i). 16384^2 float32 with `summa` (operands already on
# their ranks) and `2d` (from rank 0) on 1 and 2 ranks, checked against float64; prints the
# strong-scaling efficiency of total time from 1 to 2 GPUs, and what one local product
# pays for host<->device transfers (the operands are host arrays today: every local
# product uploads its operands and downloads C).
#
# Needs in .whl/ (carried with carry [".whl"]):
#   * .whl/setup.sh and the pyopencl wheels:   bash ../shared/tools/device-wheels.sh
#   * .whl/mpi/mpi4py-4.1.2-cp312-cp312-manylinux1_x86_64.manylinux_2_5_x86_64.whl
#     .whl/mpi/mpich-5.0.2-py3-none-manylinux_2_28_x86_64.whl
#     fetched here (any Python) with:
#       python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#         --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#         --platform manylinux2014_x86_64 --platform manylinux_2_5_x86_64 \
#         --platform manylinux1_x86_64 -d .whl/mpi "mpi4py==4.1.2" "mpich==5.0.2"
#   They live in .whl/mpi/, not .whl/: setup.sh installs every .whl/*.whl with --target,
#   which keeps only the Python packages and would drop the mpich wheel's libmpi and
#   mpiexec. Here they go into a prefix of their own, /tmp/mpi.
# The image's own mpi4py may be linked to another MPI: ours comes first on PYTHONPATH and
# MPI4PY_LIBMPI points it at the mpich wheel's libmpi, the one its mpiexec launches.
# NCCL is not used; its settings (NCCL_NVLS_ENABLE=0, ...) are left as they are.
#
#   run with carry [".whl"]:  bash bench/gpu/mpi_x2.sh      (about 5 minutes)
set -uo pipefail
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"

# --- MPI from the carried wheels -------------------------------------------------------
python3 -m pip install -q --no-index --no-deps --no-compile --no-warn-script-location \
  --ignore-installed --prefix /tmp/mpi .whl/mpi/*.whl
libmpi=$(find /tmp/mpi -name libmpi.so.12 | head -1)
mpiexec=$(find /tmp/mpi -path '*/bin/mpiexec' | head -1)
site=$(dirname "$(find /tmp/mpi -type d -path '*-packages/mpi4py' | head -1)")
if [ -z "$libmpi" ] || [ -z "$mpiexec" ] || [ "$site" = . ]; then
  echo "the mpich/mpi4py wheels did not install under /tmp/mpi (are they in .whl/mpi/?)"
  exit 1
fi
export MPI4PY_LIBMPI=$libmpi
export LD_LIBRARY_PATH=$(dirname "$libmpi")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$site:$PYTHONPATH

log() { echo "\$ $*" | tee -a "$out/$logname"; timeout "${T:-300}" "$@" 2>&1 | tee -a "$out/$logname"; }
logname=env.txt
{ nvidia-smi -L; "$mpiexec" --version | head -3
  python3 -c "import mpi4py, mpi4py.MPI as M; print(mpi4py.__file__); print(M.Get_library_version().splitlines()[0])"
  python3 -m portgemm.devices; } 2>&1 | tee "$out/$logname"

run() {  # run RANKS TAG ARGS...: one comparison, its table in mpi_x2.txt, records in JSON
  local ranks=$1 tag=$2; shift 2
  logname=mpi_x2.txt log "$mpiexec" -n "$ranks" python3 -m portgemm.distributed \
    --device 'gpu:{local_rank}' --check --timeout 280 --json "$out/$tag.json" "$@"
}

# --- one rank per GPU, every partition, small and awkward shapes: the path works -------
run 2 sanity --partition all --sizes 1x1x1,513,1000x300x77 --reps 1

# --- 16384^2 float32: summa (operands resident on their ranks) and 2d (from rank 0) -----
for n in 1 2; do
  run "$n" "n$n" --partition summa,2d --sizes 16384 --dtype float32 --reps 3
done
# SUMMA in one step (the whole K at once): fewer, larger local products and no
# accumulation of C on the host, but no overlap of the panels' broadcast
for n in 1 2; do
  run "$n" "panel_n$n" --partition summa --panel 16384 --sizes 16384 --dtype float32 --reps 3
done

# --- what a local product pays for host<->device transfers on one GPU ---------------------
logname=transfers.txt
T=240 log python3 - <<'PY'
import statistics
import numpy as np
import portgemm
# the whole problem (one GPU), a rank's product on 2 GPUs (summa, one step; 2d), one of
# SUMMA's two steps on 2 GPUs
for m, n, k in ((16384, 16384, 16384), (8192, 16384, 16384), (8192, 16384, 8192)):
    a = np.random.rand(m, k).astype(np.float32)
    b = np.random.rand(k, n).astype(np.float32)
    portgemm.gemm(a, b, device="gpu:0")
    runs = [portgemm.gemm(a, b, device="gpu:0") for _ in range(3)]
    kernel = statistics.median(r.kernel_ms for r in runs)
    wall = statistics.median(r.wall_ms for r in runs)
    moved = (a.nbytes + b.nbytes + m * n * 4) / 2**30
    print(f"{m}x{n}x{k}: kernel {kernel:.1f} ms, whole call {wall:.1f} ms; transfers and "
          f"host work {wall - kernel:.1f} ms ({wall and (wall - kernel) / wall:.0%}) for "
          f"{moved:.2f} GiB moved; {runs[0].variant} {runs[0].params}")
PY

# --- strong scaling 1 -> 2 GPUs ---------------------------------------------------------
logname=scaling.txt
python3 - "$out" <<'PY' 2>&1 | tee "$out/$logname"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
def records(tag):
    path = out / f"{tag}.json"
    return {r["partition"]: r for r in json.loads(path.read_text())["records"]} if path.exists() else {}
for label, one_tag, two_tag in (("default panels", "n1", "n2"), ("one step", "panel_n1", "panel_n2")):
    one, two = records(one_tag), records(two_tag)
    for p in one:
        if p not in two:
            continue
        t1, t2 = one[p]["total_ms"], two[p]["total_ms"]
        r = two[p]
        print(f"{p:6s} ({label}, operands {r['operands']}): 1 GPU {t1:.0f} ms, 2 GPUs {t2:.0f} ms "
              f"(comm {r['comm_ms']:.0f} + compute {r['compute_ms']:.0f}); strong-scaling "
              f"efficiency of total time {t1 / (2 * t2):.0%}; against one GPU's local product "
              f"of the whole problem {r['efficiency']:.0%}; relerr {r['relerr']:.1e} ({r['check']})")
PY
ls -la "$out"
