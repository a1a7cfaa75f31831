"""Calls from several threads at once, many rounds, to catch a rare crash: each round
THREADS threads make CALLS products each of random shapes, checked against numpy:
numpy operands ("host"), device arrays made by pyopencl's to_device and read back by
.get() ("device"; "device-locked": .get() under the queue's lock;
"device-own-queues": each thread's arrays on a queue of its own), or both kinds, a
thread each ("mixed"); or pyopencl alone, portgemm not called: an operand to the device
and back ("pyopencl"), through two of pyopencl's kernels on the way
("pyopencl-kernels"). faulthandler prints every thread's Python stack if the process dies.
    python3 -X faulthandler bench/gpu/threads_stress.py --device gpu --mode mixed --rounds 20
--guard puts a lock around pyopencl's copies or the memory pools' allocations (see
guard()), to find which sharing the driver does not survive."""

import argparse
import contextlib
import faulthandler
import sys
import threading
import time

import numpy as np

import portgemm


MODES = ("host", "device", "mixed", "device-portgemm", "device-locked", "device-own-queues", "pyopencl",
         "pyopencl-kernels")


def work(seed: int, mode: str, device, calls: int, failures: list) -> None:
    """One thread's calls; ``mode`` as --mode says."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    rng = np.random.default_rng(seed)
    shared = portgemm.Queue.for_device(device)
    on_device = mode.startswith("device") or (mode == "mixed" and seed % 2)
    queue = shared.cl_queue
    if mode == "device-own-queues":  # a queue of the thread's own, on the shared context
        queue = cl.CommandQueue(shared.context, device.handle,
                                properties=cl.command_queue_properties.PROFILING_ENABLE)
    try:
        for _ in range(calls):
            m, n, k = (int(x) for x in rng.integers(1, 200, 3))
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            if mode.startswith("pyopencl"):  # pyopencl alone: no portgemm call
                x = cl_array.to_device(queue, a)
                if mode == "pyopencl-kernels":
                    x = 2 * x + x  # two of pyopencl's own kernels
                if not np.allclose(x.get(), 3 * a if mode == "pyopencl-kernels" else a):
                    failures.append(f"{m}x{k}: wrong")
                continue
            if on_device and mode in ("mixed", "device-portgemm"):  # README's way
                c = portgemm.to_host(portgemm.matmul(portgemm.to_device(a, device),
                                                     portgemm.to_device(b, device)))
            elif on_device:
                locked = shared.lock if mode == "device-locked" else contextlib.nullcontext()
                with locked:
                    a_dev, b_dev = (cl_array.to_device(queue, x, allocator=shared.allocator)
                                    for x in (a, b))
                c_dev = portgemm.matmul(a_dev, b_dev)
                with locked:
                    c = c_dev.get()
            else:
                c = portgemm.matmul(a, b, device=device)
            expected = a.astype(np.float64) @ b
            error = np.linalg.norm(c - expected) / max(np.linalg.norm(expected), 1e-30)
            if not error < 1e-4:
                failures.append(f"{m}x{n}x{k}: error {error:.2e}")
    except Exception as exc:  # noqa: BLE001 (counted by the round)
        failures.append(repr(exc))


def guard(what: str) -> None:
    """Serialise pyopencl's enqueue_copy ("copy"), the queues' memory pools' allocations
    ("pool"), or both, each under a lock of its own (the code before Queue.lock had none)."""
    import pyopencl as cl

    from portgemm.runtime.queue import Queue

    lock = threading.Lock()

    def locked(call):
        def inner(*args, **kwargs):
            with lock:
                return call(*args, **kwargs)
        return inner

    if what in ("copy", "both"):
        cl.enqueue_copy = locked(cl.enqueue_copy)
    if what in ("pool", "both"):
        pool_of = Queue.allocator.fget
        Queue.allocator = property(lambda self: locked(pool_of(self)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--mode", choices=MODES, default="mixed")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--threads", type=int, default=6)
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--guard", choices=("none", "copy", "pool", "both"), default="none")
    args = parser.parse_args()
    faulthandler.enable(all_threads=True)
    guard(args.guard)
    device = portgemm.select_device(args.device)
    start = time.perf_counter()
    for round_ in range(args.rounds):
        failures: list = []
        threads = [threading.Thread(target=work, args=(round_ * 100 + s, args.mode, device,
                                                        args.calls, failures))
                   for s in range(args.threads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(f"round {round_}: {len(failures)} failures {failures[:3]}", flush=True)
    print(f"{args.mode}, guard {args.guard}: {args.rounds} rounds in {time.perf_counter() - start:.1f} s")
    sys.exit(0)


if __name__ == "__main__":
    main()
