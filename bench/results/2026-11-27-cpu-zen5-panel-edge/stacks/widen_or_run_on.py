import numpy as np, portgemm, time, sys
import portgemm.backends.opencl as ocl
orig_w = ocl.edge_free_columns
orig = ocl.run_stack
log=[]
def spy(*x, **kw):
    r = orig(*x, **kw)
    if r is not None: log.append((r.kernel_ms, r.wall_ms))
    return r
ocl.run_stack = spy
rng = np.random.default_rng(0)
for s in sys.argv[1:]:
    parts = [tuple(int(v) for v in side.split("x")) for side in s.split("@")]
    a = rng.standard_normal(parts[0]).astype(np.float32); b = rng.standard_normal(parts[1]).astype(np.float32)
    res = {}
    for rnd in range(4):
        for mode in ("widen", "run-on"):
            ocl.edge_free_columns = orig_w if mode == "widen" else (lambda impl, params, n: None)
            portgemm.matmul(a,b,device="intel")
            time.sleep(0.1); log.clear()
            for _ in range(5): portgemm.matmul(a,b,device="intel")
            res.setdefault(mode, []).extend(log)
    print(s, "  ".join("%s kernel %.3f wall %.3f" % ((mode,) + tuple(np.median(np.array(v), axis=0))) for mode, v in res.items()), flush=True)
