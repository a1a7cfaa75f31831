"""rematch a saved sweep's finalists and the model's point N times, R rounds each"""
import json, sys
from portgemm.tune.sweep import rematch, SweepPoint
from portgemm import select_device
path, rounds, times = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = json.load(open(path))[0]
dev = select_device("intel")
found = [SweepPoint(**p) for p in r["sweep"]]
params = {k: v for k, v in r["predicted"].items() if k not in ("GS", "BS")}
chosen = (r["predicted"]["GS"], r["predicted"]["BS"])
for t in range(times):
    final = rematch("phvm", dev, (r["m"], r["n"], r["k"]), found, chosen, lambda g, b: params, rounds=rounds)
    mine = next(x for x in final if x[:2] == chosen)
    print(f"{rounds} rounds: " + ", ".join(f"{g}x{b} {ms:.1f}" for g, b, ms in final) + f" -> model {mine[2]/final[0][2]:.3f}x", flush=True)
