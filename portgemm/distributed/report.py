"""The comparison the command line runs: every partition on every shape, timed, checked
against float64, with the one-rank baseline and the model's prediction beside it.

Timing of a case: one untimed warm-up call (kernels built or loaded), then ``reps`` calls,
each started together after a barrier. For each call the ranks' own times are gathered;
the headline of a call is

* total_ms: the slowest rank's total (the job is done when its last rank is),
* compute_ms: the slowest rank's local compute,
* comm_ms = total_ms - compute_ms: communication, waiting and packing that the slowest
  compute did not hide,

and the call with the median total is reported (its per-rank times kept in the record).
The one-rank time is rank 0's local product of the whole problem on the same device and
options, timed just before each of those calls while the other ranks wait (a shared
machine's load changes by the second: paired runs see the same conditions); its median
over the reps gives efficiency = one-rank time / (P x total_ms).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..memory import to_host
from ..verify import reference, relative_error, tolerance
from .api import BLOCK_PARTITIONS, block_layout, gemm, gemm_blocks
from .clock import Clock
from .layout import even_ranges, span
from .local import LocalSetup, timed_product
from .model import volume
from .packing import gather_blocks
from .resident import upload_block
from .transport import Transport

# --operands auto: the partitions that start from blocks already on their ranks
AUTO_BLOCKS = ("summa", "splitk")

# Above this many multiply-adds a full float64 product would take longer than the run:
# C is checked along random directions instead (see check()).
FULL_CHECK_LIMIT = 2**31
RECORD_KEYS = ("partition", "ranks", "m", "n", "k", "comm_ms", "compute_ms", "total_ms",
               "relerr")


@dataclass
class Settings:
    local: Any            # LocalOptions for every rank
    reps: int = 3
    dtype: str = "float32"
    operands: str = "auto"  # "auto": summa and splitk from blocks; "root": all from rank 0
    panel: int | None = None
    overlap: bool = True
    seed: int = 12
    resident: bool = False  # rows, 2d, summa, splitk from blocks kept on each device
    one_rank: bool = True   # time the one-rank baseline before each call (a slow local
    # product's job takes half as long without it; efficiency is then left empty)


def make_operands(m: int, n: int, k: int, dtype: str, seed: int):
    """The same A and B on every rank that asks (a seeded generator)."""
    rng = np.random.default_rng(seed)
    return rng.random((m, k), dtype=np.dtype(dtype)), rng.random((k, n), dtype=np.dtype(dtype))


def check(c: np.ndarray, a: np.ndarray, b: np.ndarray, seed: int) -> tuple[float, str]:
    """Relative error against float64: ||C - AB|| / ||AB|| in full when affordable, else
    ||(C - AB) X|| / ||AB X|| for a few random Gaussian directions X (n x 4), which has
    the same expected size and costs O(n^2); a wrong block or a NaN shows either way."""
    m, k = a.shape
    n = b.shape[1]
    if m * n * k <= FULL_CHECK_LIMIT:
        return relative_error(c, reference(a, b)), "full"
    x = np.random.default_rng(seed + 1).standard_normal((n, 4))
    expected = a.astype(np.float64) @ (b.astype(np.float64) @ x)
    got = c.astype(np.float64) @ x
    norm = np.linalg.norm(expected)
    return float(np.linalg.norm(got - expected) / (norm if norm else 1.0)), "projected"


def calibrate(comm: Any, wait: str | None = None) -> tuple[float, float] | None:
    """(alpha s, beta bytes/s) of ranks 0 and 1 from a ping-pong of 8 bytes and 16 MiB,
    for the model's prediction; None with one rank."""
    if comm.Get_size() < 2:
        return None
    t = Transport(comm, Clock(), wait)
    results = []
    for size in (8, 16 * 2**20):
        buf = np.zeros(size, np.uint8)
        best = float("inf")
        for _ in range(5):
            t.barrier()
            start = Clock()
            if t.rank == 0:
                t.send(buf, 1, 7)
                t.recv(buf, 1, 7)
            elif t.rank == 1:
                t.recv(buf, 0, 7)
                t.send(buf, 0, 7)
            best = min(best, start.total_ms() / 2e3)  # one way, seconds
        results.append(best)
    small, large = comm.bcast(results, root=0)
    return small, 16 * 2**20 / max(large - small, 1e-9)


class Comparison:
    """Runs the cases on every rank; rank 0 keeps the records."""

    def __init__(self, comm: Any, settings: Settings, setup: LocalSetup,
                 link: tuple[float, float] | None):
        self.comm, self.s, self.setup, self.link = comm, settings, setup, link
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.transport = Transport(comm, Clock())
        self.records: list[dict] = []
        self.whole: dict = {}

    def shape(self, m: int, n: int, k: int, partitions: list[str]) -> None:
        needs_all = any(self._from_blocks(p) for p in partitions)
        a = b = None
        if self.rank == 0 or needs_all:
            a, b = make_operands(m, n, k, self.s.dtype, self.s.seed)
        self.whole = {False: (a, b)}  # the one-rank product's operands: host, device
        if self.rank == 0 and self.s.one_rank:
            timed_product(a, b, self.setup)  # warm-up of the one-rank product
            if any(self._resident(p) for p in partitions):  # uploaded once, not timed
                self.whole[True] = (upload_block(a, self.setup.device),
                                    upload_block(b, self.setup.device))
                timed_product(*self.whole[True], self.setup)
        for partition in partitions:
            self._case(partition, a, b, (m, n, k))
        self.whole = {}

    def _from_blocks(self, partition: str) -> bool:
        """Whether a case starts from blocks already on their ranks."""
        if self.s.resident:
            return partition in BLOCK_PARTITIONS
        return self.s.operands == "auto" and partition in AUTO_BLOCKS

    def _resident(self, partition: str) -> bool:
        return self.s.resident and partition in BLOCK_PARTITIONS

    def _one_rank(self, partition: str) -> float | None:
        """Rank 0's product of the whole problem (on the device, with operands resident
        there, for a resident case); the others wait, yielding the cores."""
        ms = (timed_product(*self.whole[self._resident(partition)], self.setup)[1]
              if self.rank == 0 and self.s.one_rank else None)
        self.transport.barrier()
        return ms

    def _call(self, partition: str, a, b, shape) -> Any:
        s = self.s
        options = dict(local=s.local, panel=s.panel, overlap=s.overlap)
        if self._from_blocks(partition):
            a_mine, b_mine = self._blocks(partition, a, b, shape)
            if self._resident(partition):  # once, before the warm-up and the timed calls
                a_mine = upload_block(a_mine, self.setup.device)
                b_mine = upload_block(b_mine, self.setup.device)
            return lambda: gemm_blocks(a_mine, b_mine, shape, partition, comm=self.comm,
                                       **options)
        return lambda: gemm(a if self.rank == 0 else None, b if self.rank == 0 else None,
                            partition, comm=self.comm, **options)

    def _blocks(self, partition: str, a, b, shape):
        m, n, k = shape
        if partition == "splitk":
            mine = span(even_ranges(k, self.size)[self.rank])
            return np.ascontiguousarray(a[:, mine]), np.ascontiguousarray(b[mine])
        layout = block_layout(m, n, k, self.size, partition)
        return (np.ascontiguousarray(a[layout.a_block(self.rank)]),
                np.ascontiguousarray(b[layout.b_block(self.rank)]))

    def _case(self, partition: str, a, b, shape) -> None:
        call = self._call(partition, a, b, shape)
        call()  # warm-up
        calls, one_rank = [], []
        for _ in range(self.s.reps):
            if calls:  # only the last C is checked: free the earlier one before the next
                calls[-1][0].c = calls[-1][0].local = None  # call (its memory is reused)
            one_rank.append(self._one_rank(partition))  # ends in a barrier: a common start
            result = call()
            times = self.transport.gather_object(
                (result.comm_ms, result.compute_ms, result.total_ms, result.device), 0)
            calls.append((result, times))
        c = self._whole_c(calls[-1][0])
        if self.rank == 0:
            self.records.append(self._record(partition, shape, a, b, c, calls,
                                             statistics.median(one_rank)
                                             if self.s.one_rank else None))

    def _whole_c(self, result) -> np.ndarray | None:
        """C on rank 0 for the check, after the timed calls: a device C is downloaded,
        and C left in blocks (``gemm_blocks`` but splitk) is gathered here."""
        c = None if result.c is None else to_host(result.c)
        if result.c_block is None:
            return c
        layout = block_layout(result.m, result.n, result.k, self.size, result.partition)
        return gather_blocks(self.transport, 0, c,
                             [layout.c_block(r) for r in range(self.size)],
                             (result.m, result.n))

    def _record(self, partition, shape, a, b, c, calls, one_rank) -> dict:
        m, n, k = shape
        summaries = []
        for result, times in calls:
            total = max(t[2] for t in times)
            compute = max(t[1] for t in times)
            summaries.append((total, compute, result, times))
        summaries.sort(key=lambda x: x[0])
        total, compute, result, times = summaries[(len(summaries) - 1) // 2]  # median
        relerr, how = check(c, a, b, self.s.seed)
        tol = tolerance(np.dtype(self.s.dtype), k)
        v = volume(partition, self.size, m, n, k, np.dtype(self.s.dtype).itemsize,
                   result.operands)
        model_ms = v.comm_seconds(*self.link) * 1e3 if self.link else 0.0
        return {
            "partition": partition, "ranks": self.size, "m": m, "n": n, "k": k,
            "dtype": self.s.dtype, "grid": result.grid, "operands": result.operands,
            "comm_ms": total - compute, "compute_ms": compute, "total_ms": total,
            "gflops": 2.0 * m * n * k / (total * 1e6) if total else None,
            "one_rank_ms": one_rank,
            "efficiency": one_rank / (self.size * total) if one_rank and total else None,
            "relerr": float(relerr), "tolerance": float(tol), "check": how,
            "ok": bool(relerr <= tol),
            "comm_max_ms": max(t[0] for t in times),
            "model_comm_ms": model_ms, "model_bytes": v.busiest_bytes,
            "bus_bytes": v.bus_bytes,
            "reps": len(calls), "products": result.products,
            "backend": self.s.local.backend, "variant": self.s.local.variant,
            "device": times[0][3],
            "per_rank": [{"rank": r, "comm_ms": t[0], "compute_ms": t[1], "total_ms": t[2],
                          "device": t[3]} for r, t in enumerate(times)],
        }


def table(records: list[dict]) -> str:
    from tabulate import tabulate

    def num(v, fmt):
        return "" if v is None else format(v, fmt)

    rows = [(r["partition"], r["ranks"], r["grid"], r["operands"],
             f"{r['m']}x{r['n']}x{r['k']}", num(r["comm_ms"], ".2f"),
             num(r["compute_ms"], ".2f"), num(r["total_ms"], ".2f"),
             num(r["model_comm_ms"], ".2f"), num(r["gflops"], ".1f"),
             num(r["efficiency"] and 100 * r["efficiency"], ".0f"),
             f"{r['relerr']:.1e}", "ok" if r["ok"] else "WRONG") for r in records]
    return tabulate(rows, headers=("partition", "ranks", "grid", "operands", "MxNxK",
                                   "comm ms", "compute ms", "total ms", "model comm ms",
                                   "GFLOPS", "eff %", "relerr", "check"),
                    disable_numparse=True, stralign="right")
