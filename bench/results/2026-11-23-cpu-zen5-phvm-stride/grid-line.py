import sys
from portgemm.runtime.selectors import select_device
from portgemm.tune.sweep import sweep
d = select_device("opencl:cpu:0")
m, n, k = map(int, sys.argv[1].split("x"))
bs = int(sys.argv[2])
params = dict(a.split("=") for a in sys.argv[3:])
params = {a: int(b) for a, b in params.items()}
for e in range(12, 24):
    gs = 2**e // bs
    if gs < 1: continue
    p = sweep("phvm", d, (m, n, k), [(gs, bs)], params=params, reps=3)[0]
    print(f"items 2^{e} GS={gs} BS={bs}: {p.kernel_ms} ms {p.status}", flush=True)
