"""The offline autotuner: search space, strategies, measuring, saving, cost models.

    from portgemm.tune import tune, save
    result = tune("inreg", "intel", [512, 1024], strategy="model", budget_s=120)
    print(result.table())
    save(result)                     # into the user's tuning database; "auto" uses it

``python -m portgemm.tune --help`` does the same from a shell; docs/tuning.md explains
the search space, the strategies and model, the cache file and the database format.
Nothing here runs on a ``matmul`` call: what ``variant="auto"`` reads is
:mod:`portgemm.auto`.
"""

from ..auto import choose
from ..verify import tolerance
from .model import Estimate, estimate, predicted_cost
from .results import Candidate, Record, TuneResult, parse_size
from .save import known_params, save, save_entries
from .space import enumerate_space
from .strategies import STRATEGIES
from .tuner import tune

__all__ = ["Candidate", "Estimate", "Record", "STRATEGIES", "TuneResult", "choose",
           "enumerate_space", "estimate", "known_params", "parse_size", "predicted_cost",
           "save", "save_entries", "tolerance", "tune"]
