"""python -m portgemm.distributed: run and compare the partitions under mpiexec.

    mpiexec -n 4 python -m portgemm.distributed --partition all \\
        --sizes 513,1000x300x77 --check --json out.json

With ``--resident`` every rank keeps its blocks and C on its device (uploaded before, and
C downloaded after, the timed calls). Rank 0 prints the table and writes the records. Exit status: 0 when every result is
right (or unchecked), 1 when one is wrong, 2 for bad input (every rank says why), 3 when
a rank fails (the job is aborted with its message), 124 when --timeout passes.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..backends import get_backend
from ..bench.runner import parse_sizes
from ..cli import writable_output, write_atomically
from ..errors import BackendUnavailableError
from .agreement import Statement, agree, check_waiting
from .api import PARTITIONS
from .clock import Clock
from .faults import Watchdog, abort_on_error, say
from .local import LocalOptions, set_up
from .mpi import load_mpi, local_rank
from .report import Comparison, Settings, calibrate, table
from .resident import RESIDENT_BACKENDS
from .transport import Transport


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m portgemm.distributed",
                                description="distributed GEMM over MPI: compare partitions")
    p.add_argument("--partition", default="all",
                   help=f"'all' or comma-separated: {', '.join(PARTITIONS)}")
    p.add_argument("--sizes", default="513,1000x300x77", help="N (square) or MxNxK items")
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--backend", default="opencl", help="each rank's local backend")
    p.add_argument("--device", default=None,
                   help="each rank's device spec; {local_rank} and {rank} are replaced "
                        "(e.g. 'gpu:{local_rank}'); default: GPU local_rank when the node "
                        "has GPUs, else the backend's default device")
    p.add_argument("--variant", default="auto")
    p.add_argument("--params", default=None, help="the variant's parameters as JSON")
    p.add_argument("--reps", type=int, default=3, help="timed calls per case (median)")
    p.add_argument("--operands", default="auto", choices=("auto", "root"),
                   help="auto: summa and splitk start from blocks already on their ranks; "
                        "root: every partition starts from rank 0")
    p.add_argument("--resident", action="store_true",
                   help="keep operands and C on each rank's device: rows, 2d, summa and "
                        "splitk start from blocks uploaded once before the timed calls "
                        "(p2p runs from rank 0 as always); panels that cross ranks go "
                        "through host memory, timed as communication: ranks of one node "
                        "share one MPI window (device -> window -> device), others go "
                        "device -> pinned host -> MPI -> pinned host -> device "
                        "($PORTGEMM_MPI_ROUTE=mpi for that route everywhere); C is "
                        "downloaded after the timed calls for the check. OpenCL backend "
                        "only")
    p.add_argument("--no-one-rank", action="store_true",
                   help="do not time rank 0's product of the whole problem before each "
                        "call (the efficiency baseline): with a slow local product the "
                        "job takes half as long; one_rank_ms and efficiency stay empty")
    p.add_argument("--panel", type=int, default=None, help="SUMMA's widest K step")
    p.add_argument("--no-overlap", action="store_true",
                   help="SUMMA: do not fetch the next panels while computing")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if a result is wrong (results are always compared with "
                        "float64 and the error recorded)")
    p.add_argument("--json", metavar="PATH", help="rank 0 writes the records here")
    p.add_argument("--timeout", type=float, default=900.0,
                   help="abort the whole job after this many seconds (0: never)")
    args = p.parse_args(argv)
    if args.reps < 1:
        p.error("--reps must be >= 1")
    if args.timeout < 0:
        p.error(f"--timeout must be >= 0 (0: never), got {args.timeout}")
    try:
        args.params = json.loads(args.params) if args.params is not None else None
    except ValueError as exc:
        p.error(f"--params is not valid JSON ({exc}): {args.params!r}")
    if args.params is not None and not isinstance(args.params, dict):
        p.error(f"--params wants a JSON object such as '{{\"tile_y\": 4}}', got "
                f"{json.dumps(args.params)}")
    if args.json is not None:
        try:
            writable_output(args.json)  # now, not after the whole run
        except ValueError as exc:
            p.error(str(exc))
    if args.resident and args.operands == "root":
        p.error("--resident starts from blocks on the ranks' devices; it does not go with "
                "--operands root")
    try:
        args.shapes = parse_sizes(args.sizes)
    except ValueError as exc:
        p.error(str(exc))
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    # pyopencl's own kernels (device sums and fills of resident runs) print their
    # compilers' chatter as warnings; the table is what this command is for
    warnings.filterwarnings("ignore", message="Non-empty compiler output")
    try:
        mpi = load_mpi()
    except BackendUnavailableError as exc:  # mpi4py missing: the install it needs, one line
        print(f"python -m portgemm.distributed: {exc}", file=sys.stderr)
        return 2
    comm = mpi.COMM_WORLD
    with Watchdog(comm, args.timeout):
        try:
            return _compare(comm, args)
        except Exception as exc:
            if not getattr(exc, "agreed", False):
                raise
            # every rank has the same error and nobody waits: each says so and exits
            say(comm, f"{type(exc).__name__}: {exc}")
            return 2


def _compare(comm: Any, args: argparse.Namespace) -> int:
    partitions = (list(PARTITIONS) if args.partition.strip() == "all"
                  else [p.strip() for p in args.partition.split(",")])
    local = LocalOptions(args.backend, args.device, args.variant, args.params)
    settings = Settings(local, args.reps, args.dtype, args.operands, args.panel,
                        not args.no_overlap, resident=args.resident,
                        one_rank=not args.no_one_rank)
    setup = _agree_on_setup(comm, partitions, local, args.dtype, args.resident)
    link = calibrate(comm)
    comparison = Comparison(comm, settings, setup, link)
    with abort_on_error(comm):  # past the agreement, a failing rank ends the job
        for m, n, k in args.shapes:
            comparison.shape(m, n, k, partitions)
    devices = comm.gather(setup.label, root=0)
    if comm.Get_rank() != 0:
        return 0
    records = comparison.records
    print(f"{comm.Get_size()} ranks on {', '.join(sorted(set(devices)))}; local "
          f"{local.backend}/{local.variant}"
          + ("; operands resident on the devices" if args.resident else "")
          + "; link alpha/beta (ranks 0-1): "
          + (f"{link[0] * 1e6:.1f} us, {link[1] / 1e9:.2f} GB/s" if link else "n/a"))
    print(table(records), flush=True)
    if args.json is not None:
        write_atomically(Path(args.json), json.dumps(
            {"command": "python -m portgemm.distributed "
                        + " ".join(shlex.quote(a) for a in sys.argv[1:]),
             "ranks": comm.Get_size(), "devices": devices,
             "link": {"alpha_s": link[0], "beta_bytes_per_s": link[1]} if link else None,
             "records": records}, indent=1))
    wrong = [r for r in records if not r["ok"]]
    for r in wrong:
        print(f"WRONG: {r['partition']} {r['m']}x{r['n']}x{r['k']} on {r['ranks']} ranks: "
              f"relative error {r['relerr']:.2e} > {r['tolerance']:.2e}", file=sys.stderr)
    return 1 if wrong and args.check else 0


def _agree_on_setup(comm: Any, partitions: list[str], local: LocalOptions, dtype: str,
                    resident: bool = False) -> Any:
    """Before anything runs: the partitions named exist, every rank has its device, and
    the variant takes the parameters and dtype there, or every rank raises the same
    error."""
    statement = Statement(partition=",".join(partitions))
    unknown = [p for p in partitions if p not in PARTITIONS]
    if unknown:
        statement.fail("partition", f"unknown partition {', '.join(map(repr, unknown))}; "
                                    f"partitions: {', '.join(PARTITIONS)} (or 'all')")
    setup = None
    try:
        setup = set_up(local, comm.Get_rank(), local_rank(comm)[0])
        # the parameters and dtype, checked as every product will check them
        get_backend(local.backend).resolve(setup.device, local.variant, local.params,
                                           (1, 1, 1), np.dtype(dtype))
    except Exception as exc:
        statement.fail("setup", f"cannot set up the local product "
                                f"({type(exc).__name__}: {exc})")
    if resident and local.backend not in RESIDENT_BACKENDS:
        statement.fail("setup", f"--resident keeps operands on the devices of "
                                f"{', '.join(RESIDENT_BACKENDS)}; the local backend is "
                                f"{local.backend!r}")
    agree(Transport(comm, Clock(), check_waiting(statement, None, resident)), statement)
    return setup


if __name__ == "__main__":
    sys.exit(main())
