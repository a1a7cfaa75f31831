"""Search strategies: each a small function from the valid points of a space to the order
in which they are measured, and the points it leaves out (with why).

    def strategy(points, context) -> (kept, pruned)
      kept:   [(point, predicted cost or None), ...] in the order to measure
      pruned: [(point, predicted cost, why), ...]

A new strategy is one function and one line in :data:`STRATEGIES`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from ..errors import ParameterError
from ..families.base import Variant
from ..runtime.device import Device
from .model import predicted_cost
from .space import Point, identity

Kept = list[tuple[Point, Optional[float]]]  # evaluated: Python 3.9 has no float | None
Pruned = list[tuple[Point, float, str]]


@dataclass(frozen=True)
class SearchContext:
    """What a strategy may look at besides the points."""

    variant: Variant
    device: Device
    sizes: Sequence[tuple[int, int, int]]
    itemsize: int
    seed: int = 0
    fraction: float = 0.25  # the model strategy's share of ranked points that are timed


def exhaustive(points: list[Point], context: SearchContext) -> tuple[Kept, Pruned]:
    """Every valid point, in the space's order."""
    return [(p, None) for p in points], []


def random_order(points: list[Point], context: SearchContext) -> tuple[Kept, Pruned]:
    """Every valid point in a seeded random order (with a budget: a random sample)."""
    order = np.random.default_rng(context.seed).permutation(len(points))
    return [(points[i], None) for i in order], []


def model_ranked(points: list[Point], context: SearchContext) -> tuple[Kept, Pruned]:
    """Rank by the analytic model (:mod:`portgemm.tune.model`); time the top fraction."""
    costs = [predicted_cost(context.variant, p.params, context.device, context.sizes,
                            context.itemsize) for p in points]
    # Parameters the model cannot see (unrolling, padding, ...) leave ties; a seeded
    # shuffle among equal predictions samples them instead of taking the first in order.
    tiebreak = np.random.default_rng(context.seed).random(len(points))
    ranked = sorted(range(len(points)), key=lambda i: (costs[i], tiebreak[i]))
    keep = max(1, math.ceil(context.fraction * len(points)))
    kept = [(points[i], costs[i]) for i in ranked[:keep]]
    pruned = [(points[i], costs[i], f"pruned by the model: rank {r + 1} of {len(points)}, "
               f"only the top {keep} are timed")
              for r, i in enumerate(ranked[keep:], start=keep)]
    return kept, pruned


STRATEGIES: dict[str, Callable[[list[Point], SearchContext], tuple[Kept, Pruned]]] = {
    "exhaustive": exhaustive,
    "random": random_order,
    "model": model_ranked,
}


def get_strategy(name: str):
    try:
        return STRATEGIES[name]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown strategy {name!r}; choose one of "
                             f"{', '.join(STRATEGIES)}") from None


def order(points: list[Point], strategy: str, context: SearchContext,
          first: Sequence[Mapping] = ()) -> tuple[Kept, Pruned, int]:
    """The strategy's order, with the points equal to one of ``first`` (after resolving:
    a warm start from earlier tunings) moved to the front in ``first``'s order, whatever
    the strategy; and how many lead it so."""
    wanted = {}
    for params in first:
        try:
            wanted.setdefault(identity(context.variant.resolve(params)), len(wanted))
        except ParameterError:
            continue

    def rank(point: Point) -> int | None:
        return wanted.get(identity(point.params))

    front = sorted((p for p in points if rank(p) is not None), key=rank)
    rest = [p for p in points if rank(p) is None]
    kept, pruned = get_strategy(strategy)(rest, context)
    return [(p, None) for p in front] + kept, pruned, len(front)
