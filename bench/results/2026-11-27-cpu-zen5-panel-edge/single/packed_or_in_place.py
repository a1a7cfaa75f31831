"""auto's panel tile for each shape, B packed (KC 256) against B in place (KC 128), in
one process: 8 rounds, the order alternating, each side 3 untimed calls after a 0.05 s
pause, then 5 timed; medians of kernel and wall time.
    python packed_or_in_place.py 128x200x1000 ..."""
import sys
import time

import numpy as np

import portgemm

rng = np.random.default_rng(0)
device = portgemm.select_device("intel")
for shape in sys.argv[1:]:
    m, n, k = (int(v) for v in shape.split("x"))
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    base = portgemm.gemm(a, b, device=device)
    assert base.variant == "panel", base.variant
    sides = {"packed": {**base.params, "PACKED": 1, "KC": 256},
             "in place": {**base.params, "PACKED": 0, "KC": 128}}
    times = {side: [] for side in sides}
    for round_ in range(8):
        for side in (list(sides) if round_ % 2 == 0 else list(sides)[::-1]):
            time.sleep(0.05)
            for _ in range(3):
                portgemm.gemm(a, b, device=device, variant="panel", params=sides[side])
            for _ in range(5):
                r = portgemm.gemm(a, b, device=device, variant="panel", params=sides[side])
                times[side].append((r.kernel_ms, r.wall_ms))
    tile = f"{base.params['tile_y']} x {base.params['tile_x']}"
    print(f"{shape} (tile {tile}): " + "  ".join(
        f"{side} kernel {np.median(np.array(v)[:, 0]):.3f} wall {np.median(np.array(v)[:, 1]):.3f}"
        for side, v in times.items()), flush=True)
