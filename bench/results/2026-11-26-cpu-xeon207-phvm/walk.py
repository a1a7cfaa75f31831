import numpy as np, portgemm
from portgemm.runtime import probe as P
from portgemm.runtime.queue import Queue
from portgemm.runtime.ndrange import NDRange
dev = portgemm.select_device("intel")
q = Queue(dev); walk = q.kernel(P._KERNELS, "stride_walk")
count = P.WALK_FLOATS
streams = [q.empty(count*4) for _ in range(2)]
for s in streams: q.fill(s, np.float32(1), count*4).wait()
group = max(1, dev.native_vector_width)
for rep in range(3):
    out = []
    for steps in (8,12,16,20,24,28,32,40,48,64):
        groups = max(1, count // (steps*group)) | 1
        sums = q.empty(groups*group*4)
        runs = [q.submit(walk, NDRange(groups*group, group), *streams, np.int32(count), sums).kernel_ms for _ in range(6)]
        out.append(f"{steps}:{2*count*4/np.median(runs[1:])/1e6:.1f}")
    print("GB/s", " ".join(out), flush=True)
