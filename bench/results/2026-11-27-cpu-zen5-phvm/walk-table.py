"""The probe's walk (portgemm.runtime.probe.walk_times) as a table of run x BS, ms:
python walk-table.py OUT.json"""
import sys, json, time, portgemm
from portgemm.runtime import probe
d = portgemm.select_device("intel")
start = time.perf_counter()
t = probe.walk_times(d)
runs = sorted({r for r, _ in t}); bss = sorted({b for _, b in t})
print("run " + " ".join(f"{b:>6}" for b in bss))
for r in runs: print(f"{r:<4}" + " ".join(f"{t[r, b]:6.1f}" for b in bss))
print("fastest", min(t, key=t.get), "kept", probe.fastest_walk(t), f"({time.perf_counter() - start:.1f} s)")
json.dump({f"{r}x{b}": v for (r, b), v in t.items()}, open(sys.argv[1], "w"))
