import sys, numpy as np, collections
from portgemm.runtime.selectors import select_device
from portgemm.tune.sweep import sweep
import os; EL = int(os.environ.get("EL", "1"))  # 0: the single launch
d = select_device("opencl:cpu:0")
m, n, k = map(int, sys.argv[1].split("x"))
pts = [tuple(map(int, p.split("x"))) for p in sys.argv[2].split(",")]
res = collections.defaultdict(list)
for r in range(int(sys.argv[3])):
    for gs, bs in (pts if r % 2 == 0 else pts[::-1]):
        res[gs, bs].append(sweep("phvm", d, (m, n, k), [(gs, bs)], reps=3, params={"ELEMENT_LAUNCHES": EL})[0].kernel_ms)
best = min(np.median(v) for v in res.values())
for p, v in res.items():
    print(f"{p[0]}x{p[1]}: median {np.median(v):.1f} ms = {np.median(v)/best:.3f}x  ({' '.join(f'{x:.0f}' for x in v)})")
