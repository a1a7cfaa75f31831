"""Calls from several threads at once: each gets its own product, right, on a shared
device and queue; and a device-array check made while another thread is still importing
pyopencl.array answers instead of failing (it raised AttributeError once, when the first
calls of eight threads met that import half-way)."""

from __future__ import annotations

import sys
import threading
import types

import numpy as np

import portgemm
from portgemm.operands import is_device_array

from conftest import assert_close

THREADS = 6
CALLS = 12


def test_device_array_check_during_the_import(monkeypatch):
    half_imported = types.ModuleType("pyopencl.array")  # listed, no Array defined yet
    monkeypatch.setitem(sys.modules, "pyopencl.array", half_imported)
    assert not is_device_array(np.ones((2, 2)))


def test_threads_share_a_device(device):
    failures = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(CALLS):
                m, n, k = (int(x) for x in rng.integers(1, 200, 3))
                a = rng.standard_normal((m, k)).astype(np.float32)
                b = rng.standard_normal((k, n)).astype(np.float32)
                if seed % 2:  # half the threads on device arrays, queued without a wait
                    c = portgemm.matmul(portgemm.to_device(a, device),
                                        portgemm.to_device(b, device)).get()
                else:
                    c = portgemm.matmul(a, b, device=device)
                assert_close(c, a, b)
        except Exception as exc:  # noqa: BLE001 (reported by the test's thread)
            failures.append(f"thread {seed}: {exc!r}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
