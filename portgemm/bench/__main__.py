"""python -m portgemm.bench: time GEMM variants on devices beside numpy in the same run.

    python -m portgemm.bench --tile 8x8
    python -m portgemm.bench --device all --variant all --sizes 256,512,1000x300x77
    python -m portgemm.bench --variant inreg --tile 4x8 --length 8 --json out.json
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

import numpy as np
from tabulate import tabulate

from ..auto.database import databases_disabled
from ..auto.shapes import OWN_KERNEL_CLASSES, device_class
from ..backends import get_backend
from ..cli import (Parser, check_minimums, flush_stdout, stdout_closed_quietly,
                   writable_output, write_atomically)
from ..errors import PortgemmError
from .references import (ReferenceTiming, numpy_call_ms, time_clblast, time_cublas,
                         time_numpy)
from .runner import RECORD_FIELDS, BenchRecord, bench_case, check_sizes_fit, parse_sizes
from .targets import Target, check_variant_names, parse_targets, variants_for

PROG = "python -m portgemm.bench"
TUNE_COMMAND = "python -m portgemm.tune --quick --device {device} --save"


def build_parser() -> Parser:
    p = Parser(prog=PROG, description=__doc__,
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
    p.add_argument("--layout", default="CC", choices=["CC", "CF", "FC", "FF"],
                   help="A's and B's order, C row-major or F column-major (default CC; "
                        "CF: A @ W.T with W stored row-major)")
    p.add_argument("--reps", type=int, default=5, help="timed runs per case (median)")
    p.add_argument("--warmup", type=int, default=1,
                   help="untimed runs first, the checked (poisoned) call among them, so "
                        "0 and 1 both make that one; a CPU row's turns with numpy add one "
                        "before each block, and numpy's own reference takes at least 3")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", help="write the records as a JSON list")
    p.add_argument("--csv", metavar="PATH", help="write the records as CSV")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-clblast", action="store_true",
                   help="do not time CLBlast (pyclblast) beside OpenCL rows")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    """The arguments, every one checked before any work: a mistake exits with status 2
    and one line on stderr. Adds ``shapes``, ``requested`` (parameters), ``targets`` and
    ``outputs`` (format -> writable path)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_minimums(("--reps", args.reps, 1), ("--warmup", args.warmup, 0),
                       ("--seed", args.seed, 0))
        try:
            args.shapes = parse_sizes(args.sizes)
            check_sizes_fit(args.shapes, np.dtype(args.dtype).itemsize)
        except ValueError as exc:
            raise ValueError(f"--sizes: {exc}") from None
        args.requested = requested_params(args)
        args.outputs = _outputs(args)
        args.targets = parse_targets(args.device)
        check_variant_names(args.variant, args.targets)
        check_requested_params(args.requested, args.targets, args.variant)
    except (PortgemmError, ValueError, TypeError, LookupError) as exc:
        parser.error(str(exc))
    return args


def requested_params(args) -> dict:
    """--params, --tile and --length as one mapping; ValueError for a malformed one."""
    params = {}
    if args.params:
        try:
            params = json.loads(args.params)
        except ValueError as exc:
            raise ValueError(f"--params is not valid JSON ({exc}): {args.params!r}") from None
        if not isinstance(params, dict):
            raise ValueError(f"--params wants a JSON object such as '{{\"tile_y\": 4}}', "
                             f"got {args.params!r}")
    if args.tile:
        params.update(zip(("tile_y", "tile_x"), _tile(args.tile)))
    if args.length is not None:
        if args.length < 1:
            raise ValueError(f"--length must be >= 1, got {args.length}")
        params["length"] = args.length
    return params


def _tile(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"--tile wants two integers >= 1 as RxC, e.g. 8x8, got {text!r}")
    return int(parts[0]), int(parts[1])


def _outputs(args) -> dict:
    """The output files named, checked writable now rather than after the whole run."""
    named = (("json", args.json), ("csv", args.csv))
    outputs = {fmt: writable_output(path) for fmt, path in named if path is not None}
    if len(outputs) == 2 and outputs["json"].resolve() == outputs["csv"].resolve():
        raise ValueError(f"--json and --csv name the same file {args.json}")
    return outputs


def check_requested_params(requested: dict, targets: list[Target], variants: str) -> None:
    """ValueError for a requested parameter that no variant to run has (a typo was
    ignored for every row), or whose value every variant that has it refuses (every row
    was skipped, after the work); a value only some refuse skips their rows, as before."""
    takers: dict[str, list] = {name: [] for name in requested}
    for target in targets:
        backend = get_backend(target.backend)
        for variant in variants_for(target, variants):
            if variant != "auto":
                impl = backend.variant(variant)
                for name in requested.keys() & impl.parameter_names:
                    takers[name].append(impl)
    for name, value in requested.items():
        if not takers[name]:
            raise ValueError(f"no variant to run here has the parameter {name!r}")
        problems = []
        for impl in takers[name]:
            try:
                impl.resolve({name: value})
            except PortgemmError as exc:
                problems.append(str(exc))
        if len(problems) == len(takers[name]):
            raise ValueError(f"{name}={value!r}: {problems[0]}")


def params_for(variant: str, requested: dict, target: Target) -> dict:
    """The requested parameters this variant has (others are ignored for it)."""
    if variant == "auto":
        return {}
    names = get_backend(target.backend).variant(variant).parameter_names
    return {k: v for k, v in requested.items() if k in names}


def run(args, records: list | None = None) -> list[BenchRecord]:
    """Time every case of arguments checked by :func:`parse_args`, each record appended
    to ``records`` as it is made (a run cut short by Ctrl-C keeps them)."""
    targets, requested, shapes = args.targets, args.requested, args.shapes
    dtype = np.dtype(args.dtype)
    rng = np.random.default_rng(args.seed)

    plan = [(t, variants_for(t, args.variant)) for t in targets]
    progress = _progress(len(shapes) * sum(len(v) for _, v in plan), disable=args.no_progress)
    records = [] if records is None else records
    for m, n, k in shapes:
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
        a = np.asfortranarray(a) if args.layout[0] == "F" else a
        b = np.asfortranarray(b) if args.layout[1] == "F" else b
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
            # a CPU shares the host with numpy: numpy runs again between its runs
            beside = numpy_call_ms(a, b) if target.device.type != "gpu" else None
            for variant in names:
                progress.set_description(f"{variant} {m}x{n}x{k} {target.label}")
                record = bench_case(target, variant, params_for(variant, requested, target),
                                    a, b, reference64, reps=args.reps, warmup=args.warmup,
                                    beside=beside)
                # the row's own numpy median where it was taken turn about, else the shape's
                timing = ReferenceTiming(ref.library, record.ref_ms) if record.ref_ms else ref
                record.reference, record.ref_ms = timing.library, timing.ms
                record.ref_gflops = timing.gflops(m, n, k)
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

    columns = [
        ("device", lambda r: r.filter_string),
        ("variant", lambda r: r.variant),
        ("source", lambda r: r.source),
        ("params", lambda r: _params_text(r.params)),
        ("MxNxK", lambda r: f"{r.m}x{r.n}x{r.k}" + (f" {r.layout}" if r.layout != "CC" else "")),
        ("kernel ms", lambda r: fmt(r.kernel_ms, ".3f")),
        ("wall ms", lambda r: fmt(r.wall_ms, ".3f")),
        ("GFLOPS", lambda r: fmt(r.gflops, ".1f")),
        ("of ref", lambda r: f"{fmt(r.pct_of_ref, '.1f')}% {r.reference}"
         + (" (disturbed)" if disturbed(r) else "") if r.pct_of_ref is not None else ""),
        ("of CLBlast", lambda r: fmt(r.pct_of_clblast, ".1f") + "%" if r.pct_of_clblast else ""),
        ("rel err", lambda r: fmt(r.relerr, ".1e")),
        ("status", lambda r: r.status),
    ]
    if not any(r.clblast_ms is not None for r in records):
        columns = [c for c in columns if c[0] != "of CLBlast"]
    rows = [[cell(r) for _, cell in columns] for r in records]
    return tabulate(rows, headers=[name for name, _ in columns], disable_numparse=True)


# the reference's runs beside a row vary this much (slowest over fastest) where something
# else had the host: OpenBLAS's threads, competing with other processes on a 2-core VM,
# gave numpy 971-5534% of its time at 256^3 (2026-11-28), every ratio of those rows void
DISTURBED_SPREAD = 3.0


def disturbed(record: BenchRecord) -> bool:
    return record.ref_spread is not None and record.ref_spread > DISTURBED_SPREAD


def disturbed_note(records: list[BenchRecord]) -> list[str]:
    """One line where rows' references were disturbed: their ratios are not to be trusted."""
    rows = [r for r in records if disturbed(r)]
    if not rows:
        return []
    worst = max(r.ref_spread for r in rows)
    count = f"{len(rows)} row{'s' * (len(rows) > 1)}"
    return [f"(disturbed): in {count} the reference's own runs varied up to "
            f"{worst:.1f}x (over {DISTURBED_SPREAD:g}x): something else had the host, so "
            f"their ratios are not to be trusted; run again on a quiet machine"]


def model_notes(records: list[BenchRecord], targets: list[Target]) -> list[str]:
    """One line per OpenCL device (what the tuner tunes) with the shapes whose ``auto``
    row found no tuning database entry for its size class, and the command that tunes
    the size classes. Shapes of the skinny and tall-skinny classes are left out: their
    models choose by design, and that command's entries would not serve them. None where
    PORTGEMM_TUNING_DB=none turns the databases off: no entry is read there, so none
    could help."""
    if databases_disabled():
        return []
    devices = {t.label: t.opencl_device for t in targets if t.opencl_device is not None}
    shapes: dict[str, list[str]] = {}
    for r in records:
        device = devices.get(r.filter_string)
        if (device is not None and r.variant.startswith("auto") and r.source == "model"
                and device_class(device, r.m, r.n, r.k, np.dtype(r.dtype).itemsize)[0]
                not in OWN_KERNEL_CLASSES):
            shapes.setdefault(r.filter_string, []).append(f"{r.m}x{r.n}x{r.k}")
    return [f"auto on {label}: {', '.join(dict.fromkeys(found))} ran the models' choice "
            f"(no tuning database entry for the shape class); entries for the size classes: "
            + TUNE_COMMAND.format(device=devices[label].filter_string)
            for label, found in shapes.items()]


def _params_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def write_outputs(records: list[BenchRecord], outputs: dict) -> None:
    """The JSON and CSV files named on the command line, each written atomically."""
    if "json" in outputs:
        write_atomically(outputs["json"], json.dumps([r.as_dict() for r in records], indent=1))
    if "csv" in outputs:
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=RECORD_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for r in records:
            writer.writerow({**r.as_dict(), "params": _params_text(r.params)})
        write_atomically(outputs["csv"], text.getvalue())


def exit_status(records: list[BenchRecord]) -> tuple[int, str]:
    """1 with why when a result was wrong or nothing ran at all, else 0."""
    if any(r.status == "WRONG" for r in records):
        return 1, "a result was WRONG (see the status column)"
    if not any(r.kernel_ms is not None for r in records):
        return 1, "no case ran: every row was skipped or failed to build (see the status column)"
    return 0, ""


def kernel_time_words(records, targets: list[Target]) -> str:
    """What the kernel ms column holds for the rows' backends (each backend says)."""
    backend_of = {t.label: t.backend for t in targets}
    return "; ".join(dict.fromkeys(get_backend(backend_of[r.filter_string]).kernel_time
                                   for r in records)) or "OpenCL event time"


def main(argv=None) -> int:
    args = parse_args(argv)
    records, interrupted = [], False
    try:
        run(args, records)
    except KeyboardInterrupt:  # the rows measured so far are still written and shown
        interrupted = True
    try:
        write_outputs(records, args.outputs)  # first: a closed stdout must not lose them
    except OSError as exc:
        print(f"{PROG}: error: cannot write results: {exc}", file=sys.stderr)
        return 1
    status, why = exit_status(records)
    try:
        names = {r.filter_string: r.device for r in records}
        for filter_string, name in names.items():
            print(f"{filter_string}: {name}")
        print(table(records))
        print(f"kernel ms: {kernel_time_words(records, args.targets)}, median; wall ms: whole call with "
              "transfers, median; GFLOPS from kernel ms; reference timed in this run (numpy, "
              "for a CPU device: between that row's runs)"
              + ("; CLBlast: pyclblast on the same device, whole call (helper kernels "
                 "included)" if any(r.clblast_ms is not None for r in records) else ""))
        for note in disturbed_note(records) + model_notes(records, args.targets):
            print(note)
        flush_stdout()
    except BrokenPipeError:  # piped into head and the like: the reader has what it wanted
        stdout_closed_quietly()
    if interrupted:
        print(f"{PROG}: interrupted after {len(records)} rows; those are shown and written",
              file=sys.stderr)
        return 130
    if why:
        print(f"{PROG}: {why}", file=sys.stderr)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
