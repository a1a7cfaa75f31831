"""How fast can a panel cross from one rank's GPU to another's on one host? (issue 12)

Run as ``mpiexec -n 2 python3 bench/gpu/shm_probe.py 'gpu:{rank}'``: one rank per GPU.
Resident SUMMA on two GPUs moves 512 MiB each way per call; through MPI (MPICH's
shared-memory path, a copy in and a copy out through small cells) that ran at 3.7-4.5
GB/s. This measures the pieces of the alternatives, each for 512 MiB in 32 MiB chunks:

* the bus alone: device <-> pinned, pageable, and an MPI-3 shared-memory window
  (``MPI.Win.Allocate_shared``: one region that both processes map);
* host copies pinned <-> window with 1, 4 and 8 threads (numpy releases the GIL);
* a USE_HOST_PTR buffer on the window (does the driver pin it? then a device copy into
  it is a DMA straight into memory the other rank reads);
* whole exchanges, both ranks at once, chunk by chunk: "direct" (download into the own
  window, upload from the peer's), "staged" (through pinned memory and threaded copies),
  "hostptr" (device copies into and out of USE_HOST_PTR buffers on the windows);
* whether a product's kernel overlaps those copies (a rank's local SUMMA step,
  8192 x 16384 x 8192, alone and with an exchange running beside it).
Every exchange is checked: the received panel equals the peer's.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyopencl as cl
from mpi4py import MPI

import portgemm
from portgemm.runtime.queue import Queue

comm = MPI.COMM_WORLD
rank, peer = comm.rank, 1 - comm.rank
device = sys.argv[1].format(rank=rank, local_rank=rank)
# a CPU dry run: PROBE_MIB=16 PROBE_N=512 mpiexec -n 2 python bench/gpu/shm_probe.py cpu:0
SIZE = int(os.environ.get("PROBE_MIB", 512)) * 2**20
CHUNK = min(32 * 2**20, SIZE // 4)
N = int(os.environ.get("PROBE_N", 16384))
CHUNKS = range(0, SIZE, CHUNK)
queue = Queue.for_device(device)
ctx = queue.context
copies = cl.CommandQueue(ctx, queue.device.handle)
say = print if rank == 0 else (lambda *a, **k: None)

panel = portgemm.to_device(np.full((SIZE // 4,), rank + 1, np.float32), device)
arrived = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, SIZE)
pinned = portgemm.empty_pinned((SIZE,), np.uint8, device)
pinned2 = portgemm.empty_pinned((SIZE,), np.uint8, device)
pageable = np.ones(SIZE, np.uint8)
window = MPI.Win.Allocate_shared(SIZE, 1, comm=comm)
mine = np.frombuffer(window.tomemory(), np.uint8)
buf, _ = window.Shared_query(peer)
theirs = np.frombuffer(buf, np.uint8)
mine[:] = 0
pool = ThreadPoolExecutor(8)


def rate(step, reps=3):
    times = []
    for _ in range(reps):
        comm.Barrier()
        start = time.perf_counter()
        step()
        comm.Barrier()
        times.append(time.perf_counter() - start)
    return SIZE / min(times) / 1e9, min(times) * 1e3


def down(host):
    events = [cl.enqueue_copy(copies, host[i:i + CHUNK], panel.base_data, src_offset=i,
                              is_blocking=False) for i in CHUNKS]
    cl.wait_for_events(events)


def up(host):
    events = [cl.enqueue_copy(copies, arrived, host[i:i + CHUNK], dst_offset=i,
                              is_blocking=False) for i in CHUNKS]
    cl.wait_for_events(events)


def threaded_copy(dst, src, threads):
    step = -(-len(src) // threads)
    list(pool.map(lambda i: np.copyto(dst[i:i + step], src[i:i + step]),
                  range(0, len(src), step)))


for name, host in (("pinned", pinned), ("pageable", pageable), ("window", mine)):
    d, _ = rate(lambda: down(host))
    u, _ = rate(lambda: up(host))
    say(f"bus, {name:8s}: device->host {d:5.1f} GB/s, host->device {u:5.1f} GB/s "
        f"(both ranks at once)")
for threads in (1, 4, 8):
    g, _ = rate(lambda: threaded_copy(mine, pinned, threads))
    say(f"host copy pinned -> window, {threads} threads: {g:5.1f} GB/s")

# USE_HOST_PTR on the window: a device copy into it, then map/unmap for coherence
try:
    hostptr = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR,
                        hostbuf=mine)
    buf_peer = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR,
                         hostbuf=theirs)

    def hostptr_down():
        events = [cl.enqueue_copy(copies, hostptr, panel.base_data, src_offset=i,
                                  dst_offset=i, byte_count=CHUNK) for i in CHUNKS]
        cl.wait_for_events(events)
        mapped, ev = cl.enqueue_map_buffer(copies, hostptr, cl.map_flags.READ, 0, (SIZE,),
                                           np.uint8)
        ev.wait()
        mapped.base.release(copies).wait()

    d, _ = rate(hostptr_down)
    comm.Barrier()
    ok = bool(np.all(theirs.view(np.float32)[::4096] == peer + 1))
    say(f"USE_HOST_PTR buffer on the window: device -> it {d:5.1f} GB/s (with map/unmap); "
        f"the peer sees the data: {ok}")
except Exception as exc:  # noqa: BLE001 (a probe: report what the driver said)
    hostptr = None
    say(f"USE_HOST_PTR on the window failed: {exc!r}")


def check(label):
    got = np.empty(SIZE // 4, np.float32)
    cl.enqueue_copy(copies, got, arrived).wait()
    ok = bool(np.all(got[::1024] == peer + 1))
    oks = comm.allgather(ok)
    say(f"   {label}: received panel correct on both ranks: {all(oks)}")
    cl.enqueue_fill_buffer(copies, arrived, np.float32(0), 0, SIZE).wait()


def exchange(down_to, cross, up_from):
    """Both ranks at once: the panel downloaded chunk by chunk into ``down_to``, each
    chunk handed across by ``cross(chunk)`` as soon as it is down, then uploaded from
    ``up_from``; a last barrier so that nobody overwrites what the other still reads."""
    downs = [cl.enqueue_copy(copies, down_to[i:i + CHUNK], panel.base_data, src_offset=i,
                             is_blocking=False) for i in CHUNKS]
    ups = []
    for down, i in zip(downs, CHUNKS):
        down.wait()
        cross(slice(i, i + CHUNK))
        ups.append(cl.enqueue_copy(copies, arrived, up_from[i:i + CHUNK], dst_offset=i,
                                   is_blocking=False))
    cl.wait_for_events(ups)
    comm.Barrier()


def exchange_mpi():
    exchange(pinned, lambda c: comm.Sendrecv(pinned[c], peer, recvbuf=pinned2[c], source=peer),
             pinned2)


def exchange_direct():  # the barrier says both have the chunk in their windows
    exchange(mine, lambda c: comm.Barrier(), theirs)


def exchange_staged(threads=8):
    def cross(c):
        threaded_copy(mine[c], pinned[c], threads)
        comm.Barrier()
        threaded_copy(pinned2[c], theirs[c], threads)

    exchange(pinned, cross, pinned2)


exchanges = {"mpi sendrecv (today)": exchange_mpi, "direct window": exchange_direct,
             "staged 8 threads": exchange_staged,
             "staged 4 threads": lambda: exchange_staged(4)}
for label, fn in exchanges.items():
    g, ms = rate(fn)
    say(f"exchange, {label:22s}: {g:5.1f} GB/s each way, {SIZE >> 20} MiB in {ms:6.1f} ms")
    check(label)

# does the local product overlap the exchange?
m, k, n = N // 2, N // 2, N
a = portgemm.to_device(np.random.rand(m, k).astype(np.float32), device)
b = portgemm.to_device(np.random.rand(k, n).astype(np.float32), device)
c = portgemm.to_device(np.zeros((m, n), np.float32), device)
portgemm.gemm(a, b, out=c)
queue.cl_queue.finish()
_, alone = rate(lambda: (portgemm.gemm(a, b, out=c), queue.cl_queue.finish()))
for label, fn in exchanges.items():
    _, ex = rate(fn)

    def both():
        import threading
        t = threading.Thread(target=lambda: (portgemm.gemm(a, b, out=c),
                                             queue.cl_queue.finish()))
        t.start()
        fn()
        t.join()

    _, together = rate(both)
    say(f"product {m}x{n}x{k} alone {alone:6.1f} ms; exchange '{label}' alone {ex:6.1f} ms; "
        f"both at once {together:6.1f} ms (perfect overlap: {max(alone, ex):6.1f})")
window.Free()
