"""Times phvm at single (GS, BS) points in interleaved rounds, kernel time (events):
    python phvm-points.py 5x5x30000000 129x16,1025x16,4097x16 ROUNDS
"""
import sys, statistics, numpy as np, portgemm
dev = portgemm.select_device("intel")
m, n, k = map(int, sys.argv[1].split("x"))
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k), dtype=np.float32); b = rng.standard_normal((k, n), dtype=np.float32)
pts = [tuple(map(int, p.split("x"))) for p in sys.argv[2].split(",")]
times = {p: [] for p in pts}
for r in range(int(sys.argv[3]) + 1):
    for gs, bs in pts:
        res = portgemm.gemm(a, b, device=dev, variant="phvm", params={"GS": gs, "BS": bs})
        if r: times[(gs, bs)].append(res.kernel_ms)
for p in pts: print(p, p[0]*p[1], f"{statistics.median(times[p]):.1f}", flush=True)
