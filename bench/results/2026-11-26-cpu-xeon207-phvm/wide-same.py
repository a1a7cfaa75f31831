"""auto and the same parameters passed explicitly, alternating which goes first, 16 rounds
(the first two untimed): python wide-same.py 9x4096x4096"""
import statistics, sys, time
import numpy as np, portgemm
dev = portgemm.select_device("intel")
m, n, k = map(int, sys.argv[1].split("x"))
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k), dtype=np.float32); b = rng.standard_normal((k, n), dtype=np.float32)
auto = portgemm.gemm(a, b, device=dev)
params = dict(auto.params)
calls = {"auto": lambda: portgemm.gemm(a, b, device=dev),
         "explicit": lambda: portgemm.gemm(a, b, device=dev, variant=auto.variant, params=params)}
t = {key: [] for key in calls}; kt = {key: [] for key in calls}
for r in range(16):
    order = list(calls) if r % 2 else list(calls)[::-1]
    for key in order:
        t0 = time.perf_counter(); res = calls[key](); dt = (time.perf_counter() - t0) * 1e3
        if r >= 2:
            t[key].append(dt); kt[key].append(res.kernel_ms)
for key in calls:
    print(key, f"wall {statistics.median(t[key]):.2f} ms  kernel {statistics.median(kt[key]):.2f} ms", res.variant, res.params if key == 'explicit' else '')
