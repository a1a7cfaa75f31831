# Sourced by the GPU check scripts (device tool, carry [".whl"]): pyopencl from the carried
# wheels, unbuffered Python, $out (the tool's $OUT), only the shipped tuning database, and
#   part NAME                      true where $PARTS is unset or names NAME
#   step NAME LIMIT_S COMMAND...   which runs COMMAND under a time limit into $out/NAME.txt
#                                  (the command line first, rc last, pyopencl's compiler
#                                  warnings left out) and prints its last $TAILN lines.
source .whl/setup.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
rm -f ~/.cache/portgemm/tuning.json  # the shipped database only
part() { [ -z "${PARTS:-}" ] || [[ " $PARTS " == *" $1 "* ]]; }
step() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s)";
         { echo "\$ $*"; timeout "$limit" "$@"; echo "rc=$?"; } 2>&1 \
           | grep -v -i "CompilerWarning\|lambda: self._prg.build\|prg.build(" > "$out/$name.txt"
         tail -n "${TAILN:-10}" "$out/$name.txt"; }
# turns NAME DTYPE SHAPES CONTROL: the code before (build/before, carried: `git archive BASE
# portgemm kernels_cl | tar -x -C build/before`) and after as whole processes in turns
# (before, after, before, after), each auto beside the control candidate CONTROL (a JSON
# body: "variant": ..., params), the machine's drift between processes; tables:
# bench/gpu/turns_table.py
turns() { local name=$1 dtype=$2 shapes=$3 control=$4 root=$PWD
  for turn in 1 2; do for side in before after; do
    local path=$root; [ $side = before ] && path=$root/build/before
    TAILN=3 PYTHONPATH=/tmp/site:$path step "${name}_${side}_$turn" 280 python3 bench/gpu/wgmma_lead.py \
      --dtype "$dtype" --rounds 2 --shapes "$shapes" --json "$out/${name}_${side}_$turn.json" \
      --candidate 'auto={"variant": "auto"}' --candidate "control={$control}"
  done; done; }
