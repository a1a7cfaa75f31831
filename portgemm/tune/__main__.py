"""python -m portgemm.tune: tune variants on a device, save the best, show what "auto" picks.

    python -m portgemm.tune --device intel --variant tiled --sizes 256,512 --save
    python -m portgemm.tune --device intel --sizes 256,1024 --show
    python -m portgemm.tune --device pocl --quick --save
    python -m portgemm.tune --model phvm --constants a100-pcie-40gb
    python -m portgemm.tune --model tallskinny --device gpu --sizes 8x8x33554432 --sweep
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ..auto import choose
from ..auto import phvm as paper
from ..auto.database import (TUNING_DB_ENV_VAR, databases_disabled, shipped_database_paths,
                              user_database_path)
from ..auto.lookup import LEVELS
from ..cli import Parser, check_minimums, writable_output
from ..errors import PortgemmError
from ..files import user_cache_folder
from ..families import REGISTRY, get_variant
from ..runtime.selectors import select_device
from .predict import MODELS, PAPER_SIZE, predict_device, predict_named
from .quick import QUICK_BUDGET_S, QUICK_SIZE, quick_entries, quick_tune
from .results import parse_size
from .save import check_database_writable, save_entries
from .space import check_restrictions, search_space
from .starts import warm_start
from .strategies import STRATEGIES
from .tuner import tune


def default_cache_file() -> Path:
    """The tuner's measurements, in portgemm's cache folder whatever PORTGEMM_TUNING_DB
    says (beside that file before: a file named in the working folder where it was
    'none')."""
    return user_cache_folder() / "measurements.jsonl"


def _parse_param(text: str) -> tuple[str, list[int]]:
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"--param wants NAME=V1,V2,..., got {text!r}")
    try:
        numbers = [int(v) for v in values.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--param values must be integers, got {text!r}") from None
    if not numbers:
        raise argparse.ArgumentTypeError(f"--param names no value: {text!r}")
    return name.strip(), numbers


def build_parser() -> Parser:
    p = Parser(
        prog="python -m portgemm.tune",
        description="Autotune portgemm GEMM variants on one device; save the best into the "
                    "tuning database that variant='auto' reads.")
    p.add_argument("--device", default=None,
                   help="device selector: 'intel', 'gpu', 'opencl:cpu:0', ... (default: "
                        "$PORTGEMM_DEVICE, else the default selector)")
    p.add_argument("--variant", default=None,
                   help=f"variant(s) to tune, comma-separated; registered: {', '.join(REGISTRY)}")
    p.add_argument("--sizes", default=None,
                   help="comma-separated shapes: N (square) or MxNxK, e.g. 256,512x512x128 "
                        "(required, but with --model: default 5x5x30000000, the paper's MTX1)")
    p.add_argument("--quick", action="store_true",
                   help=f"tune the family auto would pick on this untuned device around its "
                        f"starting point, at {QUICK_SIZE}^3 (or the first of --sizes), in "
                        f"{QUICK_BUDGET_S:.0f} s (or --budget); with --save its best becomes "
                        f"the device's entry for every size class")
    p.add_argument("--strategy", choices=list(STRATEGIES), default=None,
                   help="the search's order (default exhaustive)")
    p.add_argument("--budget", type=float, default=None, metavar="S",
                   help="seconds after which no new candidate is started (shared by all variants)")
    p.add_argument("--max-evals", type=int, default=None, metavar="N",
                   help="evaluate at most N candidates per variant")
    p.add_argument("--fraction", type=float, default=0.25,
                   help="model strategy: share of the ranked candidates timed (default 0.25)")
    p.add_argument("--seed", type=int, default=0, help="random strategy and operand seed")
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    p.add_argument("--reps", type=int, default=3, help="timed runs per candidate and size")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs before them")
    p.add_argument("--param", type=_parse_param, action="append", default=[],
                   metavar="NAME=V1,V2", help="replace one parameter's values in the space "
                                              "(repeatable; others keep the variant's space); "
                                              "with --model --sweep: NAME=V, fixed in the sweep")
    p.add_argument("--only", type=_parse_param, action="append", default=[],
                   metavar="NAME=V1,V2", help="search only these parameters: the space is "
                                              "made of the --only ones, the rest stay default")
    p.add_argument("--restrict", action="append", default=[], metavar="EXPR",
                   help="extra restriction over parameter names, e.g. 'tile_x*tile_y<=32'")
    p.add_argument("--no-warm-start", action="store_true",
                   help="do not measure first the tuning database's entries for this device "
                        "and variant, the models' choice for each size and the variant's "
                        "defaults (they are measured even where the space lacks them)")
    p.add_argument("--cache", default=None, metavar="FILE",
                   help=f"resumable measurement cache (default {default_cache_file()})")
    p.add_argument("--no-cache", action="store_true",
                   help="measure everything afresh, record nothing")
    p.add_argument("--top", type=int, default=10, help="rows of the table (default 10)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save", action="store_true",
                   help="write the best per shape class into the user database "
                        f"({user_database_label()})")
    p.add_argument("--database", default=None, metavar="PATH",
                   help="write the best into this database file instead (implies --save)")
    p.add_argument("--level", choices=LEVELS, default="exact",
                   help="device key of the saved entries (default exact: vendor, name, driver)")
    p.add_argument("--show", action="store_true",
                   help="print what variant='auto' picks for each size and why (its shape "
                        "class among them); with no --variant nothing is tuned")
    model = p.add_argument_group("cost models of the tall-skinny kernels")
    model.add_argument("--model", choices=MODELS, default=None,
                       help="print the GS/BS a model chooses: phvm (the paper's time-cost "
                            "model) or tallskinny (our kernel's occupancy model)")
    model.add_argument("--constants", choices=sorted(paper.NAMED), default=None,
                       help="--model phvm with one of the paper's constant tables instead "
                            "of the device's measured ones (no device needed)")
    model.add_argument("--u-sm", type=float, default=None, metavar="U",
                       help=f"--model phvm: the SM utilisation u_SM (default: the table's, "
                            f"or {paper.DEFAULT_U_SM} for a measured device)")
    model.add_argument("--sweep", action="store_true",
                       help="--model: also measure a GS x BS grid on the device beside it")
    model.add_argument("--rounds", type=int, default=1, metavar="R",
                       help="--model --sweep: measure the grid R times over, point after "
                            "point each time, and keep each point's median (a shared "
                            "host's slow spells then fall on every point alike)")
    model.add_argument("--json", default=None, metavar="PATH",
                       help="--model --sweep: write the prediction and the sweep here")
    return p


def user_database_label() -> str:
    """The user database's path, or that the databases are off."""
    return (f"off: {turned_off()}" if databases_disabled() else str(user_database_path()))


def show(device, sizes, itemsize) -> None:
    print(f"variant='auto' on {device.description} "
          f"(vendor {device.vendor!r}, driver {device.driver_version!r}):")
    if databases_disabled():
        print(f"  databases: none read ({turned_off()})")
    else:
        print(f"  databases: user {user_database_path()}; shipped "
              + (", ".join(str(p) for p in shipped_database_paths()) or "(none)"))
    for m, n, k in sizes:
        choice = choose(device, m, n, k, itemsize)
        print(f"  {m}x{n}x{k}: {choice.variant} {choice.params}\n    because: {choice.reason}")


def turned_off() -> str:
    """The setting that turned the databases off, as the user wrote it."""
    return f"PORTGEMM_TUNING_DB={os.environ.get(TUNING_DB_ENV_VAR, '')!r}"


def not_run_as_saved(device, entries, itemsize: int) -> list[str]:
    """A line for each tuned size where ``variant="auto"`` does not run the entry just
    saved for it as it was measured: a rule of auto's picks another family there (the
    AVX-512 shallow-K rule, say) or fits the tile to the shape (panel to N)."""
    lines = []
    tuned = {(entry["variant"], tuple(map(tuple, entry["sizes"]))): entry for entry in entries}
    for entry in tuned.values():  # a quick tune's entries share its one size: one note
        for m, n, k in entry["sizes"]:
            choice = choose(device, m, n, k, itemsize)
            if choice.variant != entry["variant"] or choice.params != entry["params"]:
                lines.append(f"  note: at {m}x{n}x{k} auto runs {choice.variant} "
                             f"{choice.params}, not the saved entry as measured, because: "
                             f"{choice.reason}")
    return lines


def save_and_say(args, device, entries, itemsize: int, saved: str, nothing: str) -> None:
    """Save ``entries`` (the user database, or --database) and say so at once (a later
    variant may be interrupted): ``saved`` with the path in its ``{path}``, and a note for
    each tuned size where auto will not run them; ``nothing`` when none ran correctly."""
    if not entries:
        print(nothing)
        return
    path = save_entries(args.database, device, entries, args.level)
    print(saved.format(path=path))
    if args.database is None:  # the database auto reads
        for note in not_run_as_saved(device, entries, itemsize):
            print(note)


def search_space_of(args, variant) -> dict | None:
    """The space --only or --param give for ``variant`` (None: the variant's own)."""
    if args.only:
        return dict(args.only)
    if args.param:
        return {**variant.space, **dict(args.param)}
    return None


def checked_arguments(parser: Parser, args):
    """(device, sizes, variants): every argument checked before any work, outputs
    included; a mistake is one line on stderr and exit status 2 (``parser.error``)."""
    try:
        check_minimums(("--reps", args.reps, 1), ("--warmup", args.warmup, 0),
                       ("--top", args.top, 1), ("--max-evals", args.max_evals, 1),
                       ("--seed", args.seed, 0), ("--rounds", args.rounds, 1))
        if args.budget is not None and not args.budget > 0:
            raise ValueError(f"--budget must be > 0 seconds, got {args.budget:g}")
        if not 0 < args.fraction <= 1:
            raise ValueError(f"--fraction must be in (0, 1], got {args.fraction:g}")
        if args.sizes is None and args.model is None and not args.quick:
            raise ValueError("--sizes is required")
        if args.quick and (args.variant or args.model):
            raise ValueError("--quick picks its own variant: leave out --variant and --model")
        if args.u_sm is not None and not 0 < args.u_sm <= 1:
            raise ValueError(f"--u-sm must be in (0, 1], got {args.u_sm:g}")
        if (args.constants or args.sweep or args.json is not None) and args.model is None:
            raise ValueError("--constants, --sweep and --json go with --model")
        if args.constants and args.model != "phvm":
            raise ValueError(f"--constants are the PHVM paper's tables: they go with --model "
                             f"phvm, not --model {args.model}")
        if args.constants and (args.sweep or args.json is not None or args.variant
                               or args.show):
            raise ValueError("--constants predicts for the paper's own device, where "
                             "nothing runs: leave out --sweep, --json, --variant and --show")
        if args.only and args.param and args.model is None:
            raise ValueError("--only builds the space from its parameters alone and --param "
                             "changes the variant's own space: give one of them (--param "
                             "was ignored)")
        if args.model is not None and (args.variant or args.save or args.database
                                       or args.show):
            raise ValueError("--model predicts (and --sweep measures) the model's kernel: "
                             "leave out --variant, --save, --database and --show")
        if args.u_sm is not None and args.model != "phvm":
            raise ValueError("--u-sm is a constant of the PHVM paper's model: it goes with "
                             "--model phvm")
        if args.rounds > 1 and not args.sweep:
            raise ValueError("--rounds goes with --model --sweep")
        for option, given in (("--only", args.only), ("--param", args.param)):
            names = [name for name, _ in given]
            twice = sorted({name for name in names if names.count(name) > 1})
            if twice:  # a dict of them kept the last values alone
                raise ValueError(f"{option} names {', '.join(twice)} more than once: give "
                                 f"its values in one {option} {twice[0]}=V1,V2")
        quick_only = [option for option, given in (
            ("--strategy", args.strategy), ("--max-evals", args.max_evals),
            ("--only", args.only), ("--param", args.param), ("--restrict", args.restrict))
            if given]
        if args.quick and quick_only:
            raise ValueError(f"--quick searches its own space its own way: leave out "
                             f"{', '.join(quick_only)}")
        if (args.save or args.database) and not (args.variant or args.quick):
            raise ValueError("--save and --database save what --variant or --quick tunes; "
                             "--show alone tunes nothing")
        if args.model is not None:  # the sweep's fixed parameters are the model kernel's
            model_kernel = get_variant(args.model)
            search_space(model_kernel, {**model_kernel.space, **dict(args.param)})
        if args.model is not None and any(len(values) != 1 for _, values in args.param):
            raise ValueError("with --model, each --param gives one value (the sweep's "
                             "parameters besides GS and BS)")
        if args.json is not None:
            writable_output(args.json)
        try:
            default_sizes = [(QUICK_SIZE,) * 3] if args.quick else [PAPER_SIZE]
            sizes = (default_sizes if args.sizes is None else
                     [parse_size(s.strip()) for s in args.sizes.split(",") if s.strip()])
        except ValueError as exc:
            raise ValueError(f"--sizes {args.sizes!r}: {exc}") from None
        if not sizes:
            raise ValueError("--sizes names no shape")
        names = [v.strip() for v in (args.variant or "").split(",") if v.strip()]
        if args.variant is not None and not names:
            raise ValueError(f"--variant names no variant: {args.variant!r}")
        variants = [get_variant(name) for name in names]
        for variant in variants:
            search_space(variant, search_space_of(args, variant))  # unknown parameter names
            try:
                check_restrictions(variant, args.restrict)
            except ValueError as exc:
                raise ValueError(f"--restrict: {exc}") from None
        if args.save and args.database is None and databases_disabled():
            raise ValueError(f"--save writes the user database, which {turned_off()} "
                             "turns off: give --database PATH, or unset it")
        database = args.database or (user_database_path() if args.save else None)
        if database is not None and (variants or args.quick):
            check_database_writable(database)  # said now, not after tuning
        cache = None if args.no_cache else (args.cache or default_cache_file())
        for path in (database, cache) if variants or args.quick else ():  # written by tuning
            if path is not None:
                writable_output(str(path), create_folders=True)
        if args.constants:  # the paper's own device: nothing to select
            return None, sizes, variants
        device = select_device(args.device)
        if args.dtype == "float64" and not device.has_fp64:
            raise TypeError(f"{device.description} has no float64 support; use --dtype float32")
        if database is not None and (variants or args.quick):
            check_database_writable(database, device, args.level)  # its record too
    except (PortgemmError, ValueError, TypeError, LookupError) as exc:
        parser.error(str(exc))
    return device, sizes, variants


def run_quick(args, device, size, itemsize: int) -> None:
    cache = None if args.no_cache else (args.cache or default_cache_file())
    result = quick_tune(device, size=size, budget_s=args.budget or QUICK_BUDGET_S,
                        dtype=args.dtype, progress=not args.no_progress, cache_file=cache)
    print(result.summary())
    print(result.table(args.top))
    if args.save or args.database:
        save_and_say(args, device, quick_entries(result), itemsize,
                     f"saved {result.variant} for every size class ({args.level} key) into "
                     f"{{path}}; variant='auto' runs it where none of its rules picks another "
                     f"family (--show --sizes MxNxK says what auto runs at a shape)",
                     f"nothing saved: {result.why_no_best}")
    else:
        print("not saved: add --save to make it the device's entry")


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.variant is None and not (args.show or args.quick) and args.model is None:
        print("nothing to do: give --variant NAME to tune, --quick, --show or --model",
              file=sys.stderr)
        return 2
    device, sizes, variants = checked_arguments(parser, args)
    try:
        itemsize = 8 if args.dtype == "float64" else 4
        if args.model is not None:
            lines = (predict_named(args.constants, sizes, args.u_sm) if args.constants else
                     predict_device(args.model, device, sizes, u_sm=args.u_sm,
                                    run_sweep=args.sweep, reps=args.reps, out=args.json,
                                    rounds=args.rounds, dtype=args.dtype,
                                    fixed={name: values[0] for name, values in args.param}))
            print("\n".join(lines))
            return 0
        if args.quick:
            run_quick(args, device, sizes[0], itemsize)
            if args.show:
                print()
                show(device, sizes, itemsize)
            return 0
        if not variants:
            show(device, sizes, itemsize)
            return 0
        cache = None if args.no_cache else (args.cache or default_cache_file())
        started = time.perf_counter()
        for variant in variants:
            space = search_space_of(args, variant)
            budget = None
            if args.budget is not None:
                budget = args.budget - (time.perf_counter() - started)
                if budget <= 0:
                    print(f"{variant.name}: budget spent, not tuned")
                    continue
            first = [] if args.no_warm_start else warm_start(device, variant, sizes, itemsize)
            result = tune(variant, device, sizes, space=space, restrictions=args.restrict,
                          strategy=args.strategy or "exhaustive", budget_s=budget,
                          max_evals=args.max_evals,
                          reps=args.reps, warmup=args.warmup, dtype=args.dtype,
                          cache_file=cache, progress=not args.no_progress, seed=args.seed,
                          fraction=args.fraction, first=first)
            print(result.summary())
            print(result.table(args.top))
            print()
            if args.save or args.database:
                entries = result.database_entries()
                classes = ", ".join(e["shape_class"] for e in entries)
                save_and_say(args, device, entries, itemsize,
                             f"saved {variant.name} for shape classes {classes} "
                             f"({args.level} key) into {{path}}",
                             f"nothing saved for {variant.name}: {result.why_no_best}")
                if entries:
                    print()
        if args.show:
            print()
            show(device, sizes, itemsize)
    except BrokenPipeError:  # output piped into head and the like
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted; what was measured is in the cache file, a re-run resumes",
              file=sys.stderr)
        return 130
    except (PortgemmError, ValueError, TypeError, LookupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
