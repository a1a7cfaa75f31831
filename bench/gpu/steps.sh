# Sourced by the GPU check scripts (device tool, carry [".whl"]): pyopencl from the carried
# wheels, unbuffered Python, $out (the tool's $OUT), only the shipped tuning database, and
#   step NAME LIMIT_S COMMAND...   which runs COMMAND under a time limit into $out/NAME.txt
#                                  (the command line first, rc last, pyopencl's compiler
#                                  warnings left out) and prints its last $TAILN lines.
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
rm -f ~/.cache/portgemm/tuning.json  # the shipped database only
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         { echo "\$ $*"; timeout "$limit" "$@"; echo "rc=$?"; } 2>&1 \
           | grep -v -i "CompilerWarning\|lambda: self._prg.build\|prg.build(" > "$out/$name.txt"
         tail -n "${TAILN:-10}" "$out/$name.txt"; }
