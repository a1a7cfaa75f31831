"""The probe's walk (portgemm.auto.phvm.walk_times) as a table of run x BS, ms:
python walk-table.py OUT.json"""
import sys, json, portgemm
from portgemm.auto import phvm
d = portgemm.select_device("intel")
t = phvm.walk_times(d)
runs = sorted({r for r, _ in t}); bss = sorted({b for _, b in t})
print("run " + " ".join(f"{b:>6}" for b in bss))
for r in runs: print(f"{r:<4}" + " ".join(f"{t[r, b]:6.1f}" for b in bss))
print("fastest", phvm.fastest_walk(t))
json.dump({f"{r}x{b}": v for (r, b), v in t.items()}, open(sys.argv[1], "w"))
