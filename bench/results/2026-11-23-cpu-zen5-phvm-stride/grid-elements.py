import sys, os, json
from portgemm.runtime.selectors import select_device
from portgemm.tune.sweep import sweep
d = select_device("opencl:cpu:0")
m, n, k = map(int, sys.argv[1].split("x"))
EXTRA = {"ELEMENT_LAUNCHES": int(os.environ.get("EL", "1"))}
pts = []
for e in range(13, 20):
    for bs in (16, 32, 64, 128, 256, 512):
        gs = 2**e // bs
        if gs >= 1: pts.append((gs + 1, bs))
for gs, bs in pts:
    p = sweep("phvm", d, (m, n, k), [(gs, bs)], reps=2, params=EXTRA)[0]
    print(json.dumps(dict(gs=gs, bs=bs, items=gs*bs, per_wi=round(k/(gs*bs),1), ms=p.kernel_ms, status=p.status)), flush=True)
