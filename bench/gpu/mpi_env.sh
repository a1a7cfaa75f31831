# Sourced on the GPU machine (device tool, carry [".whl"]): pyopencl from .whl/setup.sh,
# then MPICH and mpi4py from the carried wheels in .whl/mpi/ (see bench/gpu/mpi_x2.sh for
# how to fetch them), installed under /tmp/mpi; sets $mpiexec. The image's own mpi4py may
# be linked to another MPI: ours comes first on PYTHONPATH and MPI4PY_LIBMPI points it at
# the mpich wheel's libmpi, the one its mpiexec launches.
source .whl/setup.sh
# --- MPI from the carried wheels -----------------------------------------------------
python3 -m pip install -q --no-index --no-deps --no-compile --no-warn-script-location \
  --ignore-installed --prefix /tmp/mpi .whl/mpi/*.whl
libmpi=$(find /tmp/mpi -name libmpi.so.12 | head -1)
mpiexec=$(find /tmp/mpi -path '*/bin/mpiexec' | head -1)
site=$(dirname "$(find /tmp/mpi -type d -path '*-packages/mpi4py' | head -1)")
if [ -z "$libmpi" ] || [ -z "$mpiexec" ] || [ "$site" = . ]; then
  echo "the mpich/mpi4py wheels did not install under /tmp/mpi (are they in .whl/mpi/?)"
  return 1
fi
export MPI4PY_LIBMPI=$libmpi
export LD_LIBRARY_PATH=$(dirname "$libmpi")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$site:$PYTHONPATH
