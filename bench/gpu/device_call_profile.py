"""Where a call on device arrays goes on the GPU: whole calls (finished) for a matrix and
a stack, the bare launch of the same kernel by pyopencl, and a profile of portgemm's call
(functions by own time).
    python3 bench/gpu/device_call_profile.py [DEVICE]"""

import cProfile
import io
import pstats
import sys

import numpy as np

import portgemm
from transfers import median_ms  # bench/gpu/transfers.py, beside this file


device = portgemm.select_device(sys.argv[1] if len(sys.argv) > 1 else "gpu")
rng = np.random.default_rng(0)
for a_shape, b_shape in [((256, 64), (64, 256)), ((256, 32, 64), (256, 64, 32))]:
    a = portgemm.to_device(rng.standard_normal(a_shape).astype(np.float32), device)
    b = portgemm.to_device(rng.standard_normal(b_shape).astype(np.float32), device)

    def call():
        portgemm.matmul(a, b).queue.finish()

    def unfinished():
        portgemm.matmul(a, b)
    print(f"{a_shape} @ {b_shape}: finished {median_ms(call, reps=50, warmup=5):.3f} ms, "
          f"not waited for {median_ms(unfinished, reps=50, warmup=5):.3f} ms", flush=True)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(50):
        call()
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(12)
    print("\n".join(line for line in text.getvalue().splitlines()[6:] if line.strip()))
