"""The communication volume of each partition, and the time it predicts on a network.

A (M x K), B (K x N), C (M x N), w bytes per element, P ranks; alpha is the latency of a
message and beta the bandwidth of one rank's link. For each partition the model counts

* ``messages`` and ``bytes`` in total (every byte counted once, where it is received),
* ``busiest_bytes``: what the busiest rank's link carries (the root's for the partitions
  that start there; any rank's for SUMMA and split-K from blocks),
* ``root_buffer_bytes``: the packed send buffer the root allocates (seed 002's scheme
  copies B once per rank),

* ``bus_bytes`` (operands "resident", blocks kept on each rank's device): what the busiest
  rank moves between its device and pinned host memory (downloads of the panels it sends,
  uploads of those it receives; splitk: C down and up around the allreduce),

and predicts the communication time on the critical path, ``busiest latencies * alpha +
busiest_bytes / beta``, with MPICH's algorithms for large messages: a broadcast of S bytes
over q ranks as a scatter plus a ring allgather (log2 q latencies, 2 (q-1)/q S through
each link), an allreduce as a reduce-scatter plus an allgather (2 log2 q latencies,
2 (q-1)/q S). It ignores contention beyond one link, and overlap: SUMMA can hide all but
one step of its communication behind computation (:func:`predict` reports both).
``python -m portgemm.distributed.model`` prints the predictions for large machines.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from ..bench.runner import parse_sizes
from ..cli import Parser, check_minimums, stdout_closed_quietly
from .layout import BlockLayout, master_worker_ranges, padded_ranges, process_grid


@dataclass(frozen=True)
class Volume:
    partition: str
    ranks: int
    messages: int           # in total
    bytes: float            # in total, each counted once where it arrives
    busiest_bytes: float    # through the busiest rank's link
    busiest_latencies: int  # message latencies on the critical path
    root_buffer_bytes: float = 0.0
    steps: int = 1          # SUMMA: steps whose communication can overlap computation
    bus_bytes: float = 0.0  # resident operands: device <-> host bytes of the busiest rank

    def comm_seconds(self, alpha: float, beta: float) -> float:
        return self.busiest_latencies * alpha + self.busiest_bytes / beta


def _log2(q: int) -> int:
    return math.ceil(math.log2(q)) if q > 1 else 0


def volume(partition: str, ranks: int, m: int, n: int, k: int, itemsize: int = 4,
           operands: str = "root") -> Volume:
    """The counts above for one partition; ``operands`` "blocks" (or "resident": the
    blocks on the ranks' devices) for rows, 2d, SUMMA and split-K started from distributed
    operands (C left where it is computed)."""
    p, w = ranks, itemsize
    in_place = operands in ("blocks", "resident")
    if p == 1 or (partition in ("rows", "2d") and in_place):
        return Volume(partition, p, 0, 0.0, 0.0, 0)  # blocks of rows and 2d hold all of K
    if partition == "p2p":
        workers = p - 1
        rows = [len(r) for r in master_worker_ranges(m, workers)]
        sent = sum(r * k + k * n for r in rows) * w
        back = m * n * w
        return Volume(partition, p, 3 * workers, sent + back, sent + back, 3 * workers)
    if partition in ("rows", "2d"):
        grid = (p, 1) if partition == "rows" else process_grid(p)
        mb = len(padded_ranges(m, grid[0])[0])
        nb = len(padded_ranges(n, grid[1])[0])
        slot, c_slot = (mb * k + k * nb) * w, mb * nb * w
        moved = (p - 1) * (slot + c_slot)
        return Volume(partition, p, 2 * (p - 1), moved, moved, 2 * _log2(p),
                      root_buffer_bytes=p * slot)
    if partition == "summa":
        return _summa(p, m, n, k, w, operands)
    if partition == "splitk":
        reduce_bytes = 2 * (p - 1) / p * m * n * w
        bus = 2 * m * n * w if operands == "resident" else 0.0  # C down and back up
        total = p * reduce_bytes
        messages, latencies, busiest = 2 * (p - 1) * p, 2 * _log2(p), reduce_bytes
        buffer = 0.0
        if operands == "root":
            scattered = (p - 1) / p * (m * k + k * n) * w
            total += scattered
            busiest += scattered
            messages += p - 1
            latencies += _log2(p)
            buffer = (m * k + k * n) * w
        return Volume(partition, p, messages, total, busiest, latencies,
                      root_buffer_bytes=buffer, bus_bytes=bus)
    raise ValueError(f"unknown partition {partition!r}")


def _summa(p: int, m: int, n: int, k: int, w: int, operands: str) -> Volume:
    layout = BlockLayout.for_ranks(m, n, k, p)
    rows, cols = layout.rows, layout.cols
    steps = layout.steps()
    m_block, n_block = -(-m // rows), -(-n // cols)  # the largest blocks: the busiest rank
    through = (2 * (cols - 1) / cols * m_block * k + 2 * (rows - 1) / rows * k * n_block) * w
    total = (m * k * (cols - 1) + k * n * (rows - 1)) * w
    messages = len(steps) * (rows * (cols - 1) + cols * (rows - 1))
    latencies = len(steps) * (_log2(cols) + _log2(rows))
    buffer = 0.0
    if operands == "root":  # scatter the blocks first, gather C at the end
        moved = (p - 1) / p * (m * k + k * n + m * n) * w
        total, through, buffer = total + moved, through + moved, (m * k + k * n) * w
        messages, latencies = messages + 2 * (p - 1), latencies + 2 * _log2(p)
    bus = 0.0
    if operands == "resident":  # its A block down or up along its row, B's along its column
        bus = ((cols > 1) * m_block * k + (rows > 1) * k * n_block) * w
    return Volume("summa", p, messages, total, through, latencies, buffer, len(steps), bus)


@dataclass(frozen=True)
class Prediction:
    volume: Volume
    comm_s: float
    compute_s: float

    @property
    def total_s(self) -> float:
        """Communication not overlapped (what the partitions here do, but SUMMA)."""
        return self.comm_s + self.compute_s

    @property
    def overlapped_s(self) -> float:
        """SUMMA with overlap, at best: the longer of communication and computation, plus
        one step of the shorter (filling and draining the pipeline)."""
        steps = max(self.volume.steps, 1)
        return max(self.compute_s, self.comm_s) + min(self.compute_s, self.comm_s) / steps

    @property
    def efficiency(self) -> float:
        """One node's time (all the compute) over P times this one's, no overlap: the
        work divides perfectly, so this is compute / (compute + communication)."""
        return self.compute_s / self.total_s if self.total_s else 1.0

    @property
    def overlapped_efficiency(self) -> float:
        return self.compute_s / self.overlapped_s if self.overlapped_s else 1.0


def predict(partition: str, ranks: int, m: int, n: int, k: int, *, itemsize: int = 4,
            gbps: float = 100.0, alpha_us: float = 2.0, node_tflops: float = 30.0,
            operands: str = "root") -> Prediction:
    """Time on ``ranks`` nodes with ``gbps`` Gb/s links of ``alpha_us`` latency, each
    node multiplying at ``node_tflops`` (perfectly divided work)."""
    v = volume(partition, ranks, m, n, k, itemsize, operands)
    comm = v.comm_seconds(alpha_us * 1e-6, gbps * 1e9 / 8)
    compute = 2.0 * m * n * k / ranks / (node_tflops * 1e12)
    return Prediction(v, comm, compute)


def parse_args(argv=None) -> argparse.Namespace:
    """The arguments, every one checked before any work: a mistake is one line on stderr
    and exit status 2 (a zero rate divided by zero, a negative one printed negative
    times). Adds ``shapes`` and ``node_counts``."""
    p = Parser(prog="python -m portgemm.distributed.model",
               description="communication model of the partitions")
    p.add_argument("--nodes", default="16,64,256", help="comma-separated node counts")
    p.add_argument("--sizes", default="16384,65536,4096x4096x1048576",
                   help="N or MxNxK items")
    p.add_argument("--gbps", type=float, default=100.0, help="each node's link, Gb/s")
    p.add_argument("--alpha-us", type=float, default=2.0, help="a message's latency, us")
    p.add_argument("--tflops", type=float, default=30.0, help="each node's GEMM rate")
    p.add_argument("--itemsize", type=int, default=4, help="bytes per element")
    args = p.parse_args(argv)
    try:
        try:
            args.shapes = parse_sizes(args.sizes)
        except ValueError as exc:
            raise ValueError(f"--sizes: {exc}") from None
        try:
            args.node_counts = [int(v) for v in args.nodes.split(",")]
        except ValueError:
            raise ValueError(f"--nodes wants comma-separated integers, got "
                             f"{args.nodes!r}") from None
        check_minimums(("--nodes", min(args.node_counts), 1),
                       ("--itemsize", args.itemsize, 1), ("--alpha-us", args.alpha_us, 0))
        for option, rate in (("--gbps", args.gbps), ("--tflops", args.tflops)):
            if not rate > 0:  # NaN too: the times divide by it
                raise ValueError(f"{option} must be > 0, got {rate:g}")
        if not math.isfinite(args.alpha_us):  # (check_minimums lets NaN by)
            raise ValueError(f"--alpha-us must be a finite number, got {args.alpha_us:g}")
    except ValueError as exc:
        p.error(str(exc))
    return args


def _main(argv=None) -> None:
    args = parse_args(argv)
    print("| nodes | M x N x K | partition | operands | messages | GB total | GB busiest "
          "link | root buffer GB | comm s | compute s | efficiency | SUMMA overlapped |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, n, k in args.shapes:
        for nodes in args.node_counts:
            for partition, operands in (("p2p", "root"), ("rows", "root"), ("2d", "root"),
                                        ("summa", "blocks"), ("splitk", "blocks")):
                pr = predict(partition, nodes, m, n, k, itemsize=args.itemsize,
                             gbps=args.gbps, alpha_us=args.alpha_us,
                             node_tflops=args.tflops, operands=operands)
                v = pr.volume
                over = f"{pr.overlapped_efficiency:.0%}" if partition == "summa" else ""
                print(f"| {nodes} | {m}x{n}x{k} | {partition} | {operands} | {v.messages} | "
                      f"{v.bytes / 1e9:.3g} | {v.busiest_bytes / 1e9:.3g} | "
                      f"{v.root_buffer_bytes / 1e9:.3g} | {pr.comm_s:.3g} | "
                      f"{pr.compute_s:.3g} | {pr.efficiency:.0%} | {over} |")


if __name__ == "__main__":
    try:
        _main()
    except BrokenPipeError:  # piped into head and the like: the reader has what it wanted
        stdout_closed_quietly()
