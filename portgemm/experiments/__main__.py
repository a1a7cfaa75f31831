"""python -m portgemm.experiments list | run NAME[,NAME]|all|device|host [options] | redraw"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..cli import stdout_closed_quietly
from ..errors import ParameterError
from .record import read_json
from .registry import GROUPS, experiments, select
from .runner import PLOT_HINT, redraw, run_experiment
from .spec import MODES


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m portgemm.experiments",
                                description="Rerun the seed reports' experiments: a table, "
                                            "a plot and the report's numbers beside ours.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="one experiment a line: its name, then what it sweeps")
    run = sub.add_parser("run", help="run experiments and write NAME.json, NAME.md, NAME.png")
    run.add_argument("name", help="an experiment's name, several comma-separated, or "
                                  + ", ".join(f"'{g}' ({w})" for g, w in GROUPS.items()))
    run.add_argument("--device", default=None,
                     help="where device kernels run: an OpenCL selector ('gpu', "
                          "'opencl:cpu:1', ...; default: the default device). Host "
                          "experiments run on the host whatever it says; so does 002-mpi "
                          "(its ranks run host code, as the report's)")
    run.add_argument("--quick", action="store_true",
                     help="smaller sizes and a 10 s point budget: at most ~2 minutes an "
                          "experiment on a 2-core CPU")
    run.add_argument("--out", default="experiment-results", help="output folder")
    run.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                     help="skip points predicted to take longer than this "
                          "(default: 60, with --quick 10)")
    run.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                     help="after this long, skip an experiment's remaining points (marked "
                          "as such; default: none, with --quick 110)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    # the tests' tiny sizes; not for users
    run.add_argument("--mode", choices=list(MODES), default=None, help=argparse.SUPPRESS)
    again = sub.add_parser("redraw", help="write NAME.md and NAME.png again from the NAME.json "
                                          "in --out, without measuring")
    again.add_argument("name", help="as for run")
    again.add_argument("--out", default="experiment-results", help="the run's output folder")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return _main(args)
    except BrokenPipeError:  # piped into head and the like: the reader has what it wanted
        stdout_closed_quietly()
        return 0
    except KeyboardInterrupt:
        print("interrupted: the experiments finished before it are written; the one "
              "under way is not", file=sys.stderr)
        return 130


def _main(args) -> int:
    if args.command == "list":
        known = experiments()
        width = max(map(len, known))
        for name, experiment in known.items():
            print(f"{name:<{width}}  {experiment.summary}  [{experiment.source}]")
        return 0
    mode = (args.mode or ("quick" if args.quick else "full")) if args.command == "run" else "full"
    try:
        chosen = select(args.name, MODES[mode])
    except ParameterError as exc:
        print(exc, file=sys.stderr)
        return 2
    mistake = _mistake(args, chosen)
    if mistake:
        print(mistake, file=sys.stderr)
        return 2
    if args.command == "redraw":
        chosen = [e for e in chosen if (Path(args.out) / f"{e.name}.json").exists()]
    wrong = plotless = False
    failed = []
    for experiment in chosen:
        if args.command == "redraw":
            outcome = redraw(experiment, args.out)
        else:
            outcome = run_experiment(experiment, device=args.device, mode=mode, out=args.out,
                                     budget_s=args.budget, time_limit_s=args.time_limit,
                                     progress=not args.no_progress)
        counts = {s: sum(r.status == s for r in outcome.records)
                  for s in ("ok", "WRONG", "skipped", "failed")}
        print(f"{experiment.name}: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
              + " -> " + ", ".join(str(f) for f in outcome.files))
        wrong |= bool(outcome.wrong)
        plotless |= not outcome.plotted
        if counts["failed"] and not counts["ok"]:
            failed.append(experiment.name)
    if plotless:
        print(f"no plots written: {PLOT_HINT}")
    if failed:
        print(f"no point ran in {', '.join(failed)}: every one failed (see the tables)",
              file=sys.stderr)
    return 1 if wrong or failed else 0


def _mistake(args, chosen) -> str:
    """What is wrong with the arguments before any work, '' when nothing: --out a file,
    a --device that names none, nothing to redraw."""
    out = Path(args.out)
    for option, value in (("--budget", getattr(args, "budget", None)),
                          ("--time-limit", getattr(args, "time_limit", None))):
        if value is not None and not value > 0:
            return f"{option} must be > 0 seconds, got {value:g}"
    if out.exists() and not out.is_dir():
        return f"--out {args.out} is a file, not a folder"
    if args.command == "redraw":
        found = [e for e in chosen if (out / f"{e.name}.json").exists()]
        if not found:
            return (f"nothing to redraw: no {', '.join(e.name + '.json' for e in chosen)} "
                    f"in {args.out}")
        for experiment in found:  # a damaged file, or another experiment's
            try:
                read_json(out / f"{experiment.name}.json", experiment.name)
            except ValueError as exc:
                return f"cannot redraw {experiment.name}: {exc}"
        return ""
    from ..runtime.selectors import DEVICE_ENV_VAR, select_device

    # $PORTGEMM_DEVICE too, where --device is not given (a traceback, later); neither
    # given, a host experiment runs on a machine without an OpenCL device
    if args.device is not None or os.environ.get(DEVICE_ENV_VAR, "").strip():
        try:
            select_device(args.device)
        except (LookupError, TypeError, ValueError) as exc:
            return (f"--device {args.device!r}: {exc}" if args.device is not None
                    else str(exc))
    return ""


if __name__ == "__main__":
    raise SystemExit(main())
