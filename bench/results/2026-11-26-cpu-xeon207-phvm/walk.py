"""The probe's grid-stride walk (portgemm.runtime.probe.walk_times) at finer runs than
WALK_RUNS, three times over; GB/s over both streams:  python walk.py"""
import portgemm
from portgemm.runtime import probe
from portgemm.runtime.queue import Queue

dev = portgemm.select_device("intel")
queue = Queue(dev)
walk = queue.kernel(probe._KERNELS, "stride_walk")
nbytes = 2 * probe.walk_floats(dev) * 4
for _ in range(3):
    times = probe.walk_times(queue, walk, (8, 12, 16, 20, 24, 28, 32, 40, 48, 64))
    print("GB/s", " ".join(f"{steps}:{nbytes / ms / 1e6:.1f}" for steps, ms in times.items()),
          flush=True)
