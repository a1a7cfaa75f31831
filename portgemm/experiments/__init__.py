"""The seed reports' experiments, each as one command: sweep, table, plot.

    python -m portgemm.experiments list
    python -m portgemm.experiments run 003-tile-sweep --device gpu --quick --out results/

Each experiment (``spec.Experiment``) lists its points (what runs where, with which
parameters, at which size, and the report's number beside it); ``runner`` measures them
under the budget rule (``budget``), checking each against float64, and writes NAME.json,
NAME.md (``markdown``, ``table``) and NAME.png (``plot``, with matplotlib). One module a
seed report (``seed000``...) and one registry (``registry``).
"""

from .registry import experiments, get, select
from .runner import Outcome, run_experiment

__all__ = ["Outcome", "experiments", "get", "run_experiment", "select"]
