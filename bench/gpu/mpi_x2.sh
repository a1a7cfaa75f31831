#!/usr/bin/env bash
# Two-GPU machine (device tool, kind nvidia-h200-x2), issue 12: distributed GEMM over MPI,
# one rank per GPU (rank i on gpu:i). 16384^2 float32 with `summa` and `2d` on 1 and 2
# ranks, checked against float64:
#   * --resident: each rank's blocks are uploaded to its GPU once, before the timed calls,
#     and C stays there (downloaded after them for the check). SUMMA's panels that cross
#     ranks go device -> a shared-memory window both processes map -> device (and, for
#     comparison, with PORTGEMM_MPI_ROUTE=mpi: device -> pinned host -> MPI -> pinned
#     host -> device); on 2 GPUs the grid is 2x1: only B's panels move, 1 GiB per rank
#     and call over the bus, 512 MiB each way between the ranks, both ways at once while
#     each rank multiplies its own half first; 2d's
#     blocks hold all of K, so its call is the local product alone. SUMMA with the default
#     steps (2: one per owner, one exchange) and with narrower ones (N/8 and N/16 wide:
#     more, smaller exchanges, each hidden behind the previous products).
#   * host-staged (numpy operands, the comparison): summa from blocks on their ranks, 2d
#     from rank 0; every local product uploads its operands and downloads C.
# Prints the strong-scaling efficiency of total time from 1 to 2 GPUs (scaling.txt; the
# goal: >= 80% with operands resident), what one local product pays for host<->device
# transfers on one GPU (transfers.txt), the MPI bandwidth between the ranks
# (mpi_bandwidth.txt: broadcasts of 512 MiB from pageable and pinned memory; the tables'
# headers: alpha/beta of a 16 MiB ping-pong between ranks 0 and 1) and the pieces of a
# panel's trip (shm_probe.txt: bus, shared window, MPI, and overlap with a product).
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
# NCCL is not used; its settings (NCCL_NVLS_ENABLE=0, ...) are left as they are.
# Waiting: PORTGEMM_MPI_WAIT=spin (each rank has 16 cores; the yielding waits are for
# ranks that share cores).
#
#   run with carry [".whl"]:  bash bench/gpu/mpi_x2.sh      (about 4 minutes; within 6)
#
# Dry run on a CPU (no wheels; the venv's mpiexec; every rank on one OpenCL CPU device,
# N = 1024 and panels N/8, N/16; yielding waits, for 2 shared cores):
#   CPU_DRY_RUN=1 OUT=/tmp/mpi_x2 bash bench/gpu/mpi_x2.sh
set -uo pipefail
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"

if [ -n "${CPU_DRY_RUN:-}" ]; then
  N=${N:-1024}
  device=${DEVICE:-opencl:cpu:0}
  mpiexec=$(command -v mpiexec)
  export PORTGEMM_MPI_WAIT=${PORTGEMM_MPI_WAIT:-yield}
  export PROBE_MIB=16 PROBE_N=$N  # shm_probe.py's panel and product, small
else
  N=${N:-16384}
  device=${DEVICE:-gpu:{local_rank\}}
  source bench/gpu/mpi_env.sh || exit 1
  export PORTGEMM_MPI_WAIT=${PORTGEMM_MPI_WAIT:-spin}
fi
wide=$((N / 8)); narrow=$((N / 16))

log() { echo "\$ $*" | tee -a "$out/$logname"; timeout "${T:-300}" "$@" 2>&1 | tee -a "$out/$logname"; }
logname=env.txt
{ nvidia-smi -L; "$mpiexec" --version | head -3
  python3 -c "import mpi4py, mpi4py.MPI as M; print(mpi4py.__file__); print(M.Get_library_version().splitlines()[0])"
  python3 -m portgemm.devices; echo "N=$N device=$device PORTGEMM_MPI_WAIT=$PORTGEMM_MPI_WAIT"
  git log -1 --format='commit %h %s' 2>/dev/null; } 2>&1 | tee "$out/$logname"

run() {  # run RANKS TAG ARGS...: one comparison, its table in mpi_x2.txt, records in JSON
  local ranks=$1 tag=$2; shift 2
  logname=mpi_x2.txt log "$mpiexec" -n "$ranks" python3 -m portgemm.distributed \
    --device "$device" --check --timeout 280 --json "$out/$tag.json" "$@"
}

# --- the MPI bandwidth between the two ranks, as SUMMA's panels use it ----------------
# 512 MiB broadcast in the chunks resident SUMMA uses (PORTGEMM_MPI_CHUNK_BYTES, 32 MiB)
# and in one piece, from pageable and from pinned host memory, and both ways at once
logname=mpi_bandwidth.txt
cat > /tmp/mpi_bandwidth.py <<'PY'  # a file: mpiexec gives its stdin to rank 0 alone
import sys, time
import numpy as np
from mpi4py import MPI
import portgemm
from portgemm.distributed.resident import chunk_bytes
comm = MPI.COMM_WORLD
device = sys.argv[1].format(local_rank=comm.rank, rank=comm.rank)
size, chunk = 512 * 2**20, chunk_bytes()
pinned = portgemm.empty_pinned((size,), np.uint8, device)
pinned[:] = 1
buffers = {"pageable": np.ones(size, np.uint8), "pinned": pinned}

def best(step):
    times = []
    for _ in range(3):
        comm.Barrier()
        start = time.perf_counter()
        step()
        comm.Barrier()
        times.append(time.perf_counter() - start)
    return size / min(times) / 1e9

for name, buf in buffers.items():
    chunked = best(lambda: [comm.Bcast(buf[i:i + chunk], root=0) for i in range(0, size, chunk)])
    whole = best(lambda: comm.Bcast(buf, root=0))
    other = np.empty_like(buf)
    both = best(lambda: comm.Sendrecv(buf, 1 - comm.rank, recvbuf=other, source=1 - comm.rank))
    if comm.rank == 0:
        print(f"{name:8s} host memory: broadcast of 512 MiB in {chunk / 2**20:g} MiB chunks "
              f"{chunked:.1f} GB/s,"
              f" in one piece {whole:.1f} GB/s; 512 MiB both ways at once {both:.1f} GB/s each")
PY
T=120 log "$mpiexec" -n 2 python3 /tmp/mpi_bandwidth.py "$device"

# --- the pieces of a panel's trip between the ranks' GPUs (bus, shared window, MPI) ---
logname=shm_probe.txt
T=120 log "$mpiexec" -n 2 python3 bench/gpu/shm_probe.py "$device"

# --- one rank per GPU, every partition, small and awkward shapes: the paths work ------
run 2 sanity --partition all --sizes 1x1x1,513,1000x300x77 --reps 1
run 2 sanity_resident --resident --partition all --sizes 1x1x1,513,1000x300x77 --panel 128 \
  --reps 1

# --- N^2 float32 with operands resident on their GPUs -------------------------------------
for n in 1 2; do
  run "$n" "resident_n$n" --resident --partition summa,2d --sizes "$N" --reps 3
done
for panel in "$wide" "$narrow"; do  # narrower SUMMA steps: more exchanges, each hidden
  run 2 "resident_panel${panel}_n2" --resident --partition summa --panel "$panel" \
    --sizes "$N" --reps 3
done
# the panels through MPI instead of the shared window (the route before; the comparison)
export PORTGEMM_MPI_ROUTE=mpi
run 2 resident_mpi_n2 --resident --partition summa --sizes "$N" --reps 3
run 2 "resident_mpi_panel${wide}_n2" --resident --partition summa --panel "$wide" \
  --sizes "$N" --reps 3
unset PORTGEMM_MPI_ROUTE

# --- the same, host-staged: numpy operands (summa from blocks, 2d from rank 0) ----------
for n in 1 2; do
  run "$n" "host_n$n" --partition summa,2d --sizes "$N" --reps 3
done

# --- what a host-staged local product pays for host<->device transfers on one GPU -------
logname=transfers.txt
T=240 log python3 - "$N" "${device//\{local_rank\}/0}" <<'PY'
import statistics, sys
import numpy as np
import portgemm
n, device = int(sys.argv[1]), sys.argv[2]
# the whole problem (one GPU), a rank's product on 2 GPUs (2d; summa in one step), one of
# SUMMA's two steps on 2 GPUs
for m, n_, k in ((n, n, n), (n // 2, n, n), (n // 2, n, n // 2)):
    a = np.random.rand(m, k).astype(np.float32)
    b = np.random.rand(k, n_).astype(np.float32)
    portgemm.gemm(a, b, device=device)
    runs = [portgemm.gemm(a, b, device=device) for _ in range(3)]
    kernel = statistics.median(r.kernel_ms for r in runs)
    wall = statistics.median(r.wall_ms for r in runs)
    moved = (a.nbytes + b.nbytes + m * n_ * 4) / 2**30
    print(f"{m}x{n_}x{k}: kernel {kernel:.1f} ms, whole call {wall:.1f} ms; transfers and "
          f"host work {wall - kernel:.1f} ms ({wall and (wall - kernel) / wall:.0%}) for "
          f"{moved:.2f} GiB moved; {runs[0].variant} {runs[0].params}")
PY

# --- strong scaling 1 -> 2 GPUs -----------------------------------------------------------
logname=scaling.txt
python3 - "$out" "$wide" "$narrow" <<'PY' 2>&1 | tee "$out/$logname"
import json, pathlib, sys
out, wide, narrow = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]

def load(tag):
    path = out / f"{tag}.json"
    if not path.exists():
        return None, {}
    data = json.loads(path.read_text())
    return data.get("link"), {r["partition"]: r for r in data["records"]}

def size(nbytes):
    return f"{nbytes / 2**30:.2f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.1f} MiB"

def line(p, label, t1, r, link):
    t2 = r["total_ms"]
    eff = t1 / (2 * t2)
    text = (f"  {p:5s} {label:14s} 1 GPU {t1:7.1f} ms, 2 GPUs {t2:7.1f} ms (comm {r['comm_ms']:.1f}"
            f" + compute {r['compute_ms']:.1f}; busiest rank's comm {r['comm_max_ms']:.1f}): "
            f"efficiency of total time {eff:.0%}; against one GPU's product of the whole "
            f"problem {r['efficiency']:.0%}; relerr {r['relerr']:.1e} ({r['check']})")
    if r["operands"] == "resident" and not r["model_bytes"]:
        text += f"\n  {'':20s} nothing crosses ranks in the call (its blocks hold all of K)"
    elif r["operands"] == "resident":
        beta = link and link["beta_bytes_per_s"]
        at = (f" ({r['model_bytes'] / beta * 1e3:.1f} ms at the link's {beta / 1e9:.1f} GB/s)"
              if beta else "")
        text += (f"\n  {'':20s} per rank and call: {size(r['bus_bytes'])} over the bus "
                 f"(device <-> host), {size(r['model_bytes'])} between the ranks{at}")
    return eff, text

best = {}
print("operands resident on their GPUs (uploaded before, C downloaded after the timed calls;"
      " panels device -> shared window -> device, or through MPI: device -> pinned -> MPI ->"
      " pinned -> device):")
link1, one = load("resident_n1")
for tag, label in (("resident_n2", "default steps"), (f"resident_panel{wide}_n2", f"panel {wide}"),
                   (f"resident_panel{narrow}_n2", f"panel {narrow}"),
                   ("resident_mpi_n2", "via MPI"),
                   (f"resident_mpi_panel{wide}_n2", f"MPI, {wide}")):
    link, two = load(tag)
    for p, r in two.items():
        if p in one:
            eff, text = line(p, label if p == "summa" else "", one[p]["total_ms"], r, link)
            best[p] = max(best.get(p, 0), eff)
            print(text)
print("host-staged (numpy operands: every local product uploads A and B and downloads C):")
_, one = load("host_n1")
link, two = load("host_n2")
for p, r in two.items():
    if p in one:
        print(line(p, f"({r['operands']})", one[p]["total_ms"], r, link)[1])
if link:
    print(f"MPI link between the ranks (ping-pong of 16 MiB): {link['beta_bytes_per_s'] / 1e9:.1f}"
          f" GB/s, alpha {link['alpha_s'] * 1e6:.0f} us")
for p, eff in best.items():
    print(f"best resident {p}: strong-scaling efficiency of total time {eff:.0%} "
          f"({'meets' if eff >= 0.8 else 'misses'} the goal of 80%)")
PY
# the device tool brings back at most 8 files: the records travel as one archive
(cd "$out" && tar czf records.tgz ./*.json && rm -f ./*.json)
ls -la "$out"
