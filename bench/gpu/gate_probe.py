"""Which commands held back behind a user event does NVIDIA's OpenCL run safely? Each
case in its own process (a crash ends only it):
    python3 bench/gpu/gate_probe.py [CASE|all] [DEVICE]"""

import subprocess
import sys
import threading

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

import portgemm
from portgemm.runtime import Queue

CASES = ["fill", "plain", "stack", "plain_thread", "stack_thread", "both_thread",
         "both_thread_cold"]


def run(case: str) -> None:
    device = portgemm.select_device(sys.argv[2] if len(sys.argv) > 2 else "gpu")
    queue = Queue.for_device(device)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((61, 129)).astype(np.float32), rng.standard_normal((129, 47)).astype(np.float32)
    sa, sb = rng.standard_normal((3, 7, 9)).astype(np.float32), rng.standard_normal((3, 9, 5)).astype(np.float32)
    ad, bd = portgemm.to_device(a, device), portgemm.to_device(b, device)
    sad, sbd = portgemm.to_device(sa, device), portgemm.to_device(sb, device)
    if "cold" not in case:  # built before the gate
        portgemm.matmul(ad, bd).get(), portgemm.matmul(sad, sbd).get()
    gate = cl.UserEvent(queue.context)
    cl.enqueue_barrier(queue.cl_queue, wait_for=[gate])
    results = {}

    def work():
        if case == "fill":
            x = cl_array.empty(queue.cl_queue, (100,), np.float32)
            x.fill(3.0)
            results["fill"] = x
        if "plain" in case or "both" in case:
            results["plain"] = portgemm.matmul(ad, bd)
        if "stack" in case or "both" in case:
            results["stack"] = portgemm.matmul(sad, sbd)
    if case.endswith("thread"):
        worker = threading.Thread(target=work)
        worker.start()
        worker.join(timeout=20)
    else:
        work()
    print(case, "returned:", sorted(results), flush=True)
    gate.set_status(cl.command_execution_status.COMPLETE)
    for name, c in results.items():
        got = c.get()
        print(name, "ok" if name == "fill" or np.isfinite(got).all() else "bad", flush=True)
    print(case, "done", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] != "all":
        run(sys.argv[1])
    else:
        for case in CASES:
            done = subprocess.run([sys.executable, __file__, case] + sys.argv[2:],
                                  capture_output=True,
                                  text=True, timeout=120)
            tail = (done.stdout.strip().splitlines()[-3:]
                    + [line for line in done.stderr.splitlines() if "Error" in line][-2:])
            print(f"{case}: rc={done.returncode} | " + " | ".join(tail), flush=True)
