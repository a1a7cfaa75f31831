"""phvm at single (GS, BS) points in interleaved rounds, kernel time (events), with the run
of K each work-item walks (steps = K / (GS * BS)); extra KEY=VALUE are kernel parameters:
    python phvm-grid.py 5x5x3000000,5x5x30000000 65x64,129x64 ROUNDS [ELEMENT_LAUNCHES=1]
"""
import statistics
import sys

import numpy as np

import portgemm

dev = portgemm.select_device("intel")
points = [tuple(map(int, p.split("x"))) for p in sys.argv[2].split(",")]
rounds = int(sys.argv[3])
extra = {key: int(value) for key, value in (kv.split("=") for kv in sys.argv[4:])}
print(dev.description, extra)
for size in sys.argv[1].split(","):
    m, n, k = map(int, size.split("x"))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    times = {p: [] for p in points}
    for r in range(rounds + 1):  # the first round warms up
        for gs, bs in points:
            res = portgemm.gemm(a, b, device=dev, variant="phvm",
                                params={"GS": gs, "BS": bs, **extra})
            if r:
                times[(gs, bs)].append(res.kernel_ms)
    best = min(statistics.median(v) for v in times.values())
    for gs, bs in points:
        t = statistics.median(times[(gs, bs)])
        print(f"{size} GS={gs} BS={bs} grid={gs * bs} steps={k / (gs * bs):.0f} "
              f"{t:.1f} ms {t / best:.2f}x", flush=True)
