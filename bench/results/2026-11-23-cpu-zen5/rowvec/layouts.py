import numpy as np, portgemm
from portgemm.auto.tallskinny import tallskinny_params
dev = portgemm.select_device("opencl:cpu:0")
rng = np.random.default_rng(0)
for m,n,k in [(8,8,4194304),(3,3,8388608),(5,5,4194304)]:
  for order in ("CC","CF","FF"):
    a=rng.random((m,k),dtype=np.float32); b=rng.random((k,n),dtype=np.float32)
    if order[0]=="F": a=np.asfortranarray(a)
    if order[1]=="F": b=np.asfortranarray(b)
    p,_=tallskinny_params(dev,m,n,k)
    lanes={"GS":64 if m>4 else 128,"BS":16,"tile_y":m,"tile_x":n}
    for name,q in (("rowvec",p),("lanes",lanes)):
        ts=[portgemm.gemm(a,b,device=dev,variant="tallskinny",params=q).kernel_ms for i in range(6)]
        print(m,n,k,order,name,f"{np.median(ts[1:]):.2f} ms",flush=True)
