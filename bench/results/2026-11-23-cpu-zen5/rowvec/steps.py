"""ROWVEC with 1, 2 or 4 sums of interleaved steps (KU), auto's tiles and groups otherwise."""
import numpy as np
import portgemm
from portgemm.auto.tallskinny import tallskinny_params

dev = portgemm.select_device("opencl:cpu:0")
rng = np.random.default_rng(0)
for m, n, k in [(2, 2, 2**23), (3, 3, 2**23), (5, 5, 2**22), (8, 8, 2**22), (4096, 2, 4096),
                (4096, 4, 4096), (4096, 8, 4096)]:
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    params, _ = tallskinny_params(dev, m, n, k)
    cells = []
    for ku in (1, 2, 4):
        p = {**params, "KU": ku}
        ms = [portgemm.gemm(a, b, device=dev, variant="tallskinny", params=p).kernel_ms
              for _ in range(7)]
        cells.append(f"KU={ku} {np.median(ms[1:]):6.2f} ms")
    print(f"{m}x{n}x{k} (auto KU={params['KU']}): " + " | ".join(cells), flush=True)
