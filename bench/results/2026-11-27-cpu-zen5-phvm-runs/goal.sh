# one run of issue 9's CPU goal: the probe afresh, then the model, the sweep and the turns
cd /work/main && source .venv/bin/activate && unset OPENBLAS_CORETYPE
n=$1
python - <<'P'
import json
from portgemm.runtime.probe import probe_file
p = probe_file()
if p.exists(): p.unlink()
P
python -m portgemm.tune --model phvm --device intel --sizes 5x5x3000000 --sweep --reps 3 \
  --param ELEMENT_LAUNCHES=1 --json ./runs-$n.json > ./runs-$n.txt 2>&1
python - <<P
import json
from portgemm.runtime.probe import probe_file
print(open("$(python -c 'from portgemm.runtime.probe import probe_file; print(probe_file())')").read()[:400])
P
grep -n "fastest\|timed again\|GS=.*BS=.*predicted\|run=" ./runs-$n.txt | cut -c1-400
