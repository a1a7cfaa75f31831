"""The one registry: experiment name -> Experiment, gathered from one module per seed report.

Adding a report's experiments is one module with a tuple ``EXPERIMENTS`` of
:class:`~.spec.Experiment` and one line here (a report may have several modules:
``seed002_mpi`` holds 002's MPI experiments, which need a place of their own).
"""

from __future__ import annotations

import importlib

from ..errors import ParameterError
from .spec import Experiment, Mode

SEED_MODULES = (
    "portgemm.experiments.seed000",
    "portgemm.experiments.seed001",
    "portgemm.experiments.seed002",
    "portgemm.experiments.seed002_mpi",
    "portgemm.experiments.seed003",
    "portgemm.experiments.seed004",
)

# names that select several experiments in ``run``
GROUPS = {
    "all": "every experiment",
    "device": "those that run kernels on the --device (what bench/gpu/experiments.sh runs)",
    "host": "the others: host code, and 002-mpi (mpiexec jobs of host code)",
}


def experiments() -> dict[str, Experiment]:
    """Every registered experiment by name, in the order of the reports."""
    found: dict[str, Experiment] = {}
    for module in SEED_MODULES:
        for experiment in importlib.import_module(module).EXPERIMENTS:
            if experiment.name in found:
                raise RuntimeError(f"experiment {experiment.name!r} registered twice")
            found[experiment.name] = experiment
    return found


def get(name: str) -> Experiment:
    known = experiments()
    try:
        return known[name]
    except KeyError:
        raise ParameterError(f"unknown experiment {name!r}; known: {', '.join(known)} "
                             f"(or {', '.join(GROUPS)})") from None


def select(spec: str, mode: Mode) -> list[Experiment]:
    """``NAME[,NAME]``, or a group of :data:`GROUPS`."""
    known = experiments()
    chosen: list[Experiment] = []
    for item in (part.strip() for part in spec.split(",") if part.strip()):
        if item == "all":
            found = list(known.values())
        elif item in ("device", "host"):
            found = [e for e in known.values() if e.uses_device(mode) == (item == "device")]
        else:
            found = [get(item)]
        chosen += [e for e in found if e not in chosen]
    if not chosen:
        raise ParameterError("no experiment named; see `python -m portgemm.experiments list`")
    return chosen
