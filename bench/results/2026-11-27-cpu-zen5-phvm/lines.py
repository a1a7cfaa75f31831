"""phvm (ELEMENT_LAUNCHES=1) along lines of a fixed run of K a work-item, every BS, rounds in turn"""
import sys, math, collections
import numpy as np
from portgemm.runtime.selectors import select_device
from portgemm.tune.sweep import sweep
d = select_device("opencl:cpu:0")
m, n, k = map(int, sys.argv[1].split("x"))
runs = [int(x) for x in sys.argv[2].split(",")]
rounds = int(sys.argv[3])
bss = [16, 32, 64, 128, 256, 512, 1024]
pts = []
for run in runs:
    for bs in bss:
        gs = max(2, math.ceil(k / (run * bs)))
        gs += 1 - gs % 2
        pts.append((run, gs, bs))
res = collections.defaultdict(list)
for r in range(rounds):
    for run, gs, bs in pts:
        p = sweep("phvm", d, (m, n, k), [(gs, bs)], reps=3, params={"ELEMENT_LAUNCHES": 1})[0]
        res[(run, gs, bs)].append(p.kernel_ms)
    print("round", r, flush=True)
print("run  " + " ".join(f"{b:>10}" for b in bss))
for run in runs:
    cells = []
    for bs in bss:
        key = [x for x in res if x[0] == run and x[2] == bs][0]
        cells.append(f"{np.median(res[key]):6.1f}/{key[1]:<4}")
    print(f"{run:<4} " + " ".join(cells))
