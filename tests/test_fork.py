"""A process forked after portgemm made a queue: on a driver that works there (Intel's
CPU runtime) the child computes as the parent does; on any other (NVIDIA's and PoCL's
hung, bench/results/2026-11-27-h100-robustness) the child's call raises
ForkedProcessError at once instead of hanging. Either way no child hangs."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

import portgemm
from portgemm.runtime import queue as queue_module

WAIT_S = 60

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")


def in_forked_child(device=None, size: int = 40, **options) -> str:
    """What a forked child's call on ``device`` (``size`` squared operands, ``options``:
    a backend, say) gave after its parent made the same call: "right", "WRONG", or the name of the exception
    it raised; "hung" where it gave nothing within WAIT_S."""
    a = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
    portgemm.matmul(a, a, device=device, **options)  # the parent's queue, threads...

    def work():
        c = portgemm.matmul(a, a, device=device, **options)
        return "right" if np.allclose(c, a @ a, rtol=1e-4, atol=1e-4) else "WRONG"

    return child_says(work)


def child_says(work) -> str:
    """What ``work()`` returned in a forked child, or the name of the exception it
    raised; "hung" where it gave nothing within WAIT_S."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report one word, then leave without cleaning up
        try:
            word = work()
        except Exception as exc:  # noqa: BLE001 (reported to the parent)
            word = type(exc).__name__
        os.write(write, word.encode())
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read)
        return "hung"
    word = os.read(read, 100).decode()
    os.close(read)
    return word


def test_a_forked_child_computes_or_refuses(device):
    expected = ("right" if device.platform in queue_module.FORK_SAFE_PLATFORMS
                else "ForkedProcessError")
    assert in_forked_child(device) == expected


def test_a_fork_while_another_thread_is_inside_a_call(device):
    """A fork waits for the calls in flight on drivers that survive one: a child forked
    while another thread held the queue (mid-call) inherited the lock held by a thread
    it does not have, and the driver's commands in flight, and hung for good."""
    import threading

    a = np.random.default_rng(1).standard_normal((300, 300)).astype(np.float32)
    portgemm.matmul(a, a, device=device)
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            portgemm.matmul(a, a, device=device)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        time.sleep(0.05)
        expected = ("right" if device.platform in queue_module.FORK_SAFE_PLATFORMS
                    else "ForkedProcessError")

        def work():
            c = portgemm.matmul(a[:8], a[:, :8], device=device)
            return "right" if np.allclose(c, a[:8] @ a[:, :8], rtol=1e-4, atol=1e-4) else "WRONG"

        assert [child_says(work) for _ in range(3)] == [expected] * 3
    finally:
        stop.set()
        worker.join()


def test_a_fork_does_not_wait_for_a_users_gated_commands(device):
    """A user's queue that portgemm has run on, its commands held by the user's event
    (set after the fork): the fork goes on at once (finish() held it for good)."""
    import threading

    import pyopencl as cl
    import pyopencl.array as cl_array

    context = queue_module.Queue.for_device(device).context
    mine = cl.CommandQueue(context)
    a = cl_array.to_device(mine, np.ones((8, 8), np.float32))
    portgemm.matmul(a, a).get()
    gate = cl.UserEvent(context)
    cl.enqueue_barrier(mine, wait_for=[gate])
    opener = threading.Timer(WAIT_S, gate.set_status, [cl.command_execution_status.COMPLETE])
    opener.start()  # so that a fork that waits for it ends at last, and fails
    try:
        started = time.monotonic()
        word = child_says(lambda: "right")
        took = time.monotonic() - started
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
        opener.cancel()
    assert word == "right" and took < 3, (word, took)


def test_a_driver_not_known_to_survive_is_refused(device, monkeypatch):
    """The refusal itself, on whatever driver is here (the hook reads the list in the
    child, which inherits the patched one)."""
    monkeypatch.setattr(queue_module, "FORK_SAFE_PLATFORMS", ())
    assert in_forked_child(device) == "ForkedProcessError"


def test_a_child_refuses_drivers_its_parent_started(any_device, monkeypatch):
    """Listing the devices starts every driver: a child's new queue on one that does not
    survive a fork hung (PoCL, its parent having only listed the devices or used Intel's
    runtime), as did commands on a user's own queue made before the fork. Both raise
    ForkedProcessError (every driver counted as one that does not survive, here)."""
    monkeypatch.setattr(queue_module, "FORK_SAFE_PLATFORMS", ())
    portgemm.get_devices()
    own = queue_module.Queue(any_device)
    buffer = own.empty(16)

    def new_queue():
        queue_module.Queue(any_device)
        return "made"

    def own_queue_command():
        own.fill(buffer, np.float32(1), 16)
        return "ran"

    assert child_says(new_queue) == "ForkedProcessError"
    assert child_says(own_queue_command) == "ForkedProcessError"


def test_the_refusal_says_what_to_do(any_device):
    queue = queue_module.Queue(any_device)
    queue.forked_from = 1
    with pytest.raises(portgemm.ForkedProcessError, match="spawn"):
        queue.refuse_after_fork()


def test_a_forked_child_runs_the_host_backends_threads():
    """parallel_for's worker threads stay in the parent: a child queued its pieces to
    them and hung for good; it starts workers of its own (os.register_at_fork)."""
    assert in_forked_child(size=64, backend="host", variant="threads-rows",
                           params={"num_threads": 2}) == "right"


def test_a_device_and_a_result_cross_to_and_from_a_spawned_worker(any_device):
    """A Device pickles as the way to select it again, a GemmResult without its event
    (both failed: "cannot pickle 'Device' object"), so a spawned worker takes the one
    and returns the other."""
    import multiprocessing
    import pickle

    assert pickle.loads(pickle.dumps(any_device)) == any_device
    a = np.random.default_rng(1).standard_normal((20, 30)).astype(np.float32)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        result = pool.apply(portgemm.gemm, (a, a.T), {"device": any_device})
    assert result.device == any_device and result.device.handle is not None
    np.testing.assert_allclose(result.c, a @ a.T, rtol=1e-4, atol=1e-4)
