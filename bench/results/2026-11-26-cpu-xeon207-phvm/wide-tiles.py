"""tallskinny ROWVEC on a wide C: tile x GS points and numpy, interleaved rounds, wall ms."""
import statistics, sys, time
import numpy as np, portgemm
dev = portgemm.select_device("intel")
size = tuple(map(int, sys.argv[1].split("x")))
tiles = [tuple(map(int, t.split("x"))) for t in sys.argv[2].split(",")]
groups = [int(g) for g in sys.argv[3].split(",")]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
m, n, k = size
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k), dtype=np.float32); b = rng.standard_normal((k, n), dtype=np.float32)
ref = a.astype(np.float64) @ b
auto = portgemm.gemm(a, b, device=dev)
base = dict(auto.params)
print(size, "auto:", auto.variant, base)
points = [(t, g) for t in tiles for g in groups]
times = {p: [] for p in points}; times["numpy"] = []; times["auto"] = []
for r in range(rounds + 1):
    for p in points + ["numpy", "auto"]:
        t0 = time.perf_counter()
        if p == "numpy":
            c = a @ b
        elif p == "auto":
            c = portgemm.gemm(a, b, device=dev).c
        else:
            (ty, tx), g = p
            c = portgemm.gemm(a, b, device=dev, variant="tallskinny",
                              params={**base, "tile_y": ty, "tile_x": tx, "GS": g}).c
        dt = (time.perf_counter() - t0) * 1e3
        if r:
            times[p].append(dt)
        elif p not in ("numpy",):
            err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
            assert err < 1e-5, (p, err)
npm = statistics.median(times["numpy"])
best = min(statistics.median(v) for v in times.values())
for p, v in times.items():
    t = statistics.median(v)
    print(f"{str(p):>16s} {t:8.2f} ms  {t / best:5.2f}x best  {100 * npm / t:6.1f}% of numpy", flush=True)
