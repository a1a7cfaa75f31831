import numpy as np, portgemm, time
dev = portgemm.select_device("opencl:cpu:0")
rng = np.random.default_rng(0)
for m,n,k in [(1,4096,4096),(4,4096,4096),(16,4096,4096),(1,8192,8192),(8,8192,8192),(2,16384,2048),(16,2048,8192)]:
    a=rng.random((m,k),dtype=np.float32); b=rng.random((k,n),dtype=np.float32)
    out=[]
    for band_mb in (0.5,1,2,4,8):
        gs=max(1,int(np.ceil(k*n*4/(band_mb*2**20))))
        gs=min(gs,k//16)
        p={"GS":gs,"BS":1,"ROWVEC":1,"tile_y":min(m,16),"tile_x":16}
        ts=[portgemm.gemm(a,b,device=dev,variant="tallskinny",params=p).kernel_ms for i in range(6)]
        out.append(f"{band_mb}MB(GS={gs}) {np.median(ts[1:]):.2f}")
    t=[]
    for i in range(5):
        s=time.perf_counter(); a@b; t.append((time.perf_counter()-s)*1e3)
    print(m,n,k," | ".join(out), f"| numpy {np.median(t[1:]):.2f}", flush=True)
