"""Choosing variants and parameters: the autotuner, the tuning database, the heuristic.

    from portgemm.tune import tune, save
    result = tune("inreg", "intel", [512, 1024], strategy="model", budget_s=120)
    print(result.table())
    save(result)                     # into the user's tuning database; "auto" uses it

``python -m portgemm.tune --help`` does the same from a shell; docs/tuning.md explains
the search space, the strategies and model, the cache file and the database format.
"""

from .choice import Choice, choose
from .db import (DatabaseError, known_params, lookup, read_database, save_entries, shape_class,
                       shipped_database_paths, user_database_path)
from .model import Estimate, estimate, predicted_cost
from .space import enumerate_space
from .tuner import (STRATEGIES, Candidate, Record, TuneResult, parse_size, tolerance,
                    tune)


def save(result: TuneResult, database=None, level: str = "exact"):
    """Write ``result``'s best candidate per shape class into a tuning database (the
    user's when ``database`` is None) under the device's record at ``level``; returns
    the path written, or None when no candidate was verified."""
    entries = result.database_entries()
    if not entries:
        return None
    return save_entries(database, result.device, entries, level)


__all__ = ["Candidate", "Choice", "DatabaseError", "Estimate", "Record", "STRATEGIES", "known_params",
           "TuneResult", "choose", "enumerate_space", "estimate", "lookup", "parse_size",
           "predicted_cost", "read_database", "save", "save_entries", "shape_class",
           "shipped_database_paths", "tolerance", "tune", "user_database_path"]
