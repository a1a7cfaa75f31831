import sys
from portgemm.runtime.selectors import select_device
from portgemm.tune.sweep import sweep
import os; EXTRA = {"ELEMENT_LAUNCHES": int(os.environ.get("EL", "0"))}
d = select_device("opencl:cpu:0")
m, n, k = map(int, sys.argv[1].split("x"))
pts = [tuple(map(int, p.split("x"))) for p in sys.argv[2].split(",")]
for r in range(int(sys.argv[3]) if len(sys.argv) > 3 else 2):
    for gs, bs in pts:
        p = sweep("phvm", d, (m, n, k), [(gs, bs)], reps=3, params=EXTRA)[0]
        print(f"GS={gs} BS={bs} items={gs*bs} per-WI={k/(gs*bs):.1f}: {p.kernel_ms:.1f} ms", flush=True)
