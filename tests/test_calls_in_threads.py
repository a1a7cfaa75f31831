"""Calls from several threads at once: each gets its own product, right, on a shared
device and queue, the calls taking turns on it (Queue.lock: NVIDIA's driver crashed the
process when threads copied numpy operands to and from one queue at once, in each of
three runs; bench/results/2026-11-27-gpu-threads), device arrays read back by
portgemm.to_host; threads staging large operands at once do not fill each other's
pinned buffers; and a device-array check made while another thread is still importing
pyopencl.array answers instead of failing (it raised AttributeError once, when the first
calls of eight threads met that import half-way)."""

from __future__ import annotations

import sys
import threading
import types

import numpy as np
import pytest

import portgemm
from portgemm.backends import transfers
from portgemm.operands import is_device_array

from conftest import assert_close, held_elsewhere

THREADS = 6
CALLS = 12


def failures_in_threads(work) -> list[str]:
    """Run ``work(seed)`` in THREADS threads at once; what each raised, in words."""
    failures = []

    def guarded(seed: int) -> None:
        try:
            work(seed)
        except Exception as exc:  # noqa: BLE001 (reported by the test)
            failures.append(f"thread {seed}: {exc!r}")

    threads = [threading.Thread(target=guarded, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_device_array_check_during_the_import(monkeypatch):
    half_imported = types.ModuleType("pyopencl.array")  # listed, no Array defined yet
    monkeypatch.setitem(sys.modules, "pyopencl.array", half_imported)
    assert not is_device_array(np.ones((2, 2)))


@pytest.mark.parametrize("operands", ["numpy", "numpy and device arrays"])
def test_threads_share_a_device(device, operands):
    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(CALLS):
            m, n, k = (int(x) for x in rng.integers(1, 200, 3))
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            if operands != "numpy" and seed % 2:  # queued without a wait
                c = portgemm.to_host(portgemm.matmul(portgemm.to_device(a, device),
                                                     portgemm.to_device(b, device)))
            else:
                c = portgemm.matmul(a, b, device=device)
            assert_close(c, a, b)

    failures = failures_in_threads(work)
    assert not failures, failures


def test_threads_share_the_staging_buffers(device, monkeypatch):
    """A queue's pinned staging buffers (the "staged" policy of a discrete GPU) serve one
    transfer at a time: threads staging at once would fill each other's chunks."""
    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, "staged")
    monkeypatch.setattr(transfers, "STAGED_FROM_BYTES", 0)
    monkeypatch.setattr(transfers, "CHUNK_BYTES", 4096)  # many chunks of a small problem
    transfers.staging_for.cache_clear()

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(CALLS // 2):
            a = rng.standard_normal((70 + seed, 130)).astype(np.float32)
            b = rng.standard_normal((130, 90)).astype(np.float32)
            assert_close(portgemm.matmul(a, b, device=device), a, b)

    try:
        failures = failures_in_threads(work)
    finally:
        transfers.staging_for.cache_clear()
    assert not failures, failures


def test_a_call_holds_its_queue_until_it_is_done(device, monkeypatch):
    """A call's commands, copies and waits go in one turn on its queue (Queue.lock):
    another thread cannot take the queue between its launches and bringing C back."""
    from portgemm.backends import opencl
    from portgemm.runtime import Queue

    lock, held = Queue.for_device(device).lock, []
    launch = opencl._launch

    def watched_launch(*args, **kwargs):
        held.append(held_elsewhere(lock))
        return launch(*args, **kwargs)

    monkeypatch.setattr(opencl, "_launch", watched_launch)
    a = np.ones((9, 5), np.float32)
    assert_close(portgemm.matmul(a, a.T, device=device), a, a.T)
    assert_close(portgemm.matmul(np.stack([a, a]), a.T, device=device)[1], a, a.T)
    assert held == [True, True]


def test_a_users_queue_keeps_its_lock_past_the_wrappers_kept(device):
    """The lock known-issues.md tells threads to hold around their own commands on a
    queue is that queue's for good: past WRAPPED_KEPT other queues its wrapper was made
    anew with a lock of its own, which did not keep a thread holding the old one out."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    from portgemm.runtime.queue import WRAPPED_KEPT, Queue

    context = Queue.for_device(device).context
    mine = cl.CommandQueue(context)
    held = Queue.for_cl_queue(mine).lock
    a = np.ones((4, 4), np.float32)
    for _ in range(WRAPPED_KEPT + 1):
        other = cl.CommandQueue(context)
        portgemm.matmul(cl_array.to_device(other, a), cl_array.to_device(other, a)).get()
    assert Queue.for_cl_queue(mine).lock is held


def test_threads_holding_their_own_queues_call_with_each_others_arrays(device):
    """Each thread holds its queue's lock around its own commands (as known-issues.md
    says) and multiplies by an array of the other's queue: both finish. A barrier put on
    the other queue under its lock deadlocked the two, 3 of 3 runs."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    from portgemm.runtime.queue import Queue

    context = Queue.for_device(device).context
    first, second = cl.CommandQueue(context), cl.CommandQueue(context)
    ones = np.ones((32, 32), np.float32)
    b_of = {q.int_ptr: cl_array.to_device(q, ones) for q in (first, second)}
    finished = []

    def work(mine, other):
        for _ in range(100):
            with Queue.for_cl_queue(mine).lock:
                c = portgemm.matmul(cl_array.to_device(mine, ones), b_of[other.int_ptr])
                assert c.get()[0, 0] == 32
        finished.append(mine)

    threads = [threading.Thread(target=work, args=pair, daemon=True)
               for pair in ((first, second), (second, first))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(finished) == 2
