import time, numpy as np, portgemm
from portgemm.auto.tallskinny import tallskinny_params
dev = portgemm.select_device("opencl:cpu:0")
rng = np.random.default_rng(0)
def med(f, n=5):
    ts=[]
    for i in range(n+1):
        t=time.perf_counter(); r=f(); ts.append((time.perf_counter()-t)*1e3)
    return np.median(ts[1:]), r
for m,k in [(4096,4096),(16384,2048)]:
  for n in [8,12,16,20,24,32,48]:
    a=rng.random((m,k),dtype=np.float32); b=rng.random((k,n),dtype=np.float32)
    p,_=tallskinny_params(dev,m,n,k)
    tn,_=med(lambda: a@b)
    tt,rt=med(lambda: portgemm.matmul(a,b,device=dev,variant="tallskinny",params=p))
    ta,ra=med(lambda: portgemm.gemm(a,b,device=dev))
    print(f"{m}x{n}x{k}: numpy {tn:6.2f} | tallskinny {tt:6.2f} ({tn/tt*100:4.0f}%) tile {p['tile_y']}x{p['tile_x']} | auto {ra.variant} {ta:6.2f} ({tn/ta*100:4.0f}%)", flush=True)
