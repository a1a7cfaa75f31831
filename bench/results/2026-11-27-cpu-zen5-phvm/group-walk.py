"""Version 3 of the probe's walk (two streams, x[k] * y[k] at k = t, t + G, ...) ending in
phvm's group tree and one atomic add a group, at each BS and run (ms, median of 5):
python group-walk.py 16,32,128,512  (TREE=0: the walk alone, as version 3 timed it)"""
import sys, numpy as np
import portgemm
from portgemm.runtime.queue import Queue
from portgemm.runtime.ndrange import NDRange
SRC = r"""
__kernel __attribute__((reqd_work_group_size(BS, 1, 1)))
void group_walk(__global const float *x, __global const float *y, const int count,
                __global int *out)
{
    __local float sums[BS];
    const int lid = get_local_id(0);
    float acc = 0.0f;
    for (int k = get_global_id(0); k < count; k += get_global_size(0))
        acc = fma(x[k], y[k], acc);
#if TREE
    sums[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = BS / 2; s > 0; s >>= 1) {
        if (lid < s)
            sums[lid] += sums[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        atomic_add(out, (int)sums[0]);
#else
    if (acc == 12345.0f)
        atomic_add(out, 1);  /* keeps the loads */
#endif
}
"""
dev = portgemm.select_device("intel")
q = Queue(dev)
count = 15_000_000  # version 3's WALK_FLOATS
streams = [q.empty(count * 4) for _ in range(2)]
for s in streams: q.fill(s, np.float32(1), count * 4).wait()
out = q.empty(4)
import os; TREE = int(os.environ.get("TREE", "1"))
runs = [int(r) for r in sys.argv[1].split(",")]
for rep in range(2):
  for group in (16, 32, 64, 128, 256, 512, 1024):
    k = q.kernel(SRC, "group_walk", (f"-DBS={group}", f"-DTREE={TREE}"))
    cells = []
    for steps in runs:
        groups = max(1, count // (steps * group)) | 1
        t = [q.submit(k, NDRange(groups * group, group), *streams, np.int32(count), out).kernel_ms for _ in range(6)]
        cells.append(f"{steps}:{np.median(t[1:]):.1f}")
    print("BS", group, " ".join(cells), flush=True)
