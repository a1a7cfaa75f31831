"""python -m portgemm.bench: time GEMM variants on devices beside numpy in the same run.

    python -m portgemm.bench --tile 8x8
    python -m portgemm.bench --device all --variant all --sizes 256,512,1000x300x77
    python -m portgemm.bench --variant inreg --tile 4x8 --length 8 --json out.json
"""

from __future__ import annotations

import argparse
import csv
import json
import sys

import numpy as np
from tabulate import tabulate

from ..backends import get_backend
from .references import time_clblast, time_cublas, time_numpy
from .runner import RECORD_FIELDS, BenchRecord, bench_case, parse_sizes
from .targets import Target, check_variant_names, parse_targets, variants_for


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m portgemm.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None,
                   help="SPEC[,SPEC] side by side: OpenCL selectors, 'host' (serial and "
                        "threaded CPU variants), 'dpex[:FILTER]' (numba-dpex), or 'all' "
                        "(default: the default selector / $PORTGEMM_DEVICE)")
    p.add_argument("--variant", default="all",
                   help="NAME[,NAME], 'auto' (what matmul picks: tuning database, else a "
                        "heuristic) or 'all' (default: all registered variants)")
    p.add_argument("--tile", metavar="RxC", help="tile_y x tile_x for variants with a tile")
    p.add_argument("--length", type=int, help="input-register length for 'inreg'")
    p.add_argument("--params", default=None,
                   help="JSON object of parameters applied where a variant has them")
    p.add_argument("--sizes", default="256,512", help="N[,N] square or MxNxK (default 256,512)")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--reps", type=int, default=5, help="timed runs per case (median)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs first")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", help="write the records as a JSON list")
    p.add_argument("--csv", metavar="PATH", help="write the records as CSV")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-clblast", action="store_true",
                   help="do not time CLBlast (pyclblast) beside OpenCL rows")
    args = p.parse_args(argv)
    if args.reps < 1 or args.warmup < 0:
        p.error("--reps must be >= 1 and --warmup >= 0")
    return args


def requested_params(args) -> dict:
    params = json.loads(args.params) if args.params else {}
    if args.tile:
        try:
            rows, cols = (int(v) for v in args.tile.lower().split("x"))
        except ValueError:
            raise SystemExit(f"--tile wants RxC, e.g. 8x8, got {args.tile!r}")
        params.update(tile_y=rows, tile_x=cols)
    if args.length is not None:
        params["length"] = args.length
    return params


def params_for(variant: str, requested: dict, target: Target) -> dict:
    """The requested parameters this variant has (others are ignored for it)."""
    if variant == "auto":
        return {}
    names = get_backend(target.backend).variant(variant).parameter_names
    return {k: v for k, v in requested.items() if k in names}


def run(args) -> list[BenchRecord]:
    targets = parse_targets(args.device)
    check_variant_names(args.variant, targets)
    requested = requested_params(args)
    shapes = parse_sizes(args.sizes)
    dtype = np.dtype(args.dtype)
    rng = np.random.default_rng(args.seed)

    plan = [(t, variants_for(t, args.variant)) for t in targets]
    progress = _progress(len(shapes) * sum(len(v) for _, v in plan), disable=args.no_progress)
    records = []
    for m, n, k in shapes:
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
        reference64 = a.astype(np.float64) @ b.astype(np.float64)
        references = [time_numpy(a, b, args.reps, args.warmup)]
        if any(t.device.type == "gpu" for t in targets):
            cublas = time_cublas(a, b, args.reps, args.warmup)
            if cublas is not None:
                references.append(cublas)
        for target, names in plan:
            # a GPU is compared with the GPU library, a CPU with the host library
            ref = references[-1] if target.device.type == "gpu" else references[0]
            clblast = (time_clblast(a, b, target.opencl_device, args.reps, args.warmup)
                       if target.opencl_device is not None and not args.no_clblast else None)
            for variant in names:
                progress.set_description(f"{variant} {m}x{n}x{k} {target.label}")
                record = bench_case(target, variant, params_for(variant, requested, target),
                                    a, b, reference64, reps=args.reps, warmup=args.warmup)
                record.reference, record.ref_ms = ref.library, ref.ms
                record.ref_gflops = ref.gflops(m, n, k)
                if record.gflops is not None:
                    record.pct_of_ref = 100.0 * record.gflops / record.ref_gflops
                if clblast is not None:
                    record.clblast_ms = clblast.ms
                    if record.gflops is not None:
                        record.pct_of_clblast = 100.0 * record.gflops / clblast.gflops(m, n, k)
                records.append(record)
                progress.update(1)
    progress.close()
    return records


def _progress(total: int, disable: bool):
    from tqdm import tqdm

    return tqdm(total=total, disable=disable or not sys.stderr.isatty(), leave=False,
                file=sys.stderr)


def table(records: list[BenchRecord]) -> str:
    def fmt(value, spec):
        return "" if value is None else format(value, spec)

    rows = [(r.filter_string, r.variant, _params_text(r.params), f"{r.m}x{r.n}x{r.k}",
             fmt(r.kernel_ms, ".3f"), fmt(r.wall_ms, ".3f"), fmt(r.gflops, ".1f"),
             f"{fmt(r.pct_of_ref, '.1f')}% {r.reference}" if r.pct_of_ref is not None else "",
             fmt(r.relerr, ".1e"), r.status) for r in records]
    headers = ["device", "variant", "params", "MxNxK", "kernel ms", "wall ms", "GFLOPS",
               "of ref", "rel err", "status"]
    if any(r.clblast_ms is not None for r in records):
        headers.insert(8, "of CLBlast")
        rows = [row[:8] + (fmt(r.pct_of_clblast, ".1f") + "%" if r.pct_of_clblast else "",)
                + row[8:] for row, r in zip(rows, records)]
    return tabulate(rows, headers=headers, disable_numparse=True)


def _params_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def write_outputs(records: list[BenchRecord], args) -> None:
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.as_dict() for r in records], f, indent=1)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=RECORD_FIELDS, extrasaction="ignore")
            writer.writeheader()
            for r in records:
                writer.writerow({**r.as_dict(), "params": _params_text(r.params)})


def main(argv=None) -> int:
    args = parse_args(argv)
    records = run(args)
    names = {r.filter_string: r.device for r in records}
    for filter_string, name in names.items():
        print(f"{filter_string}: {name}")
    print(table(records))
    print("kernel ms: OpenCL event time, median; wall ms: whole call with transfers, median; "
          "GFLOPS from kernel ms; reference timed in this run"
          + ("; CLBlast: pyclblast on the same device, whole call (helper kernels included)"
             if any(r.clblast_ms is not None for r in records) else ""))
    write_outputs(records, args)
    return 1 if any(r.status == "WRONG" for r in records) else 0


if __name__ == "__main__":
    raise SystemExit(main())
