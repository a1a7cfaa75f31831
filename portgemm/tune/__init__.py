"""Choosing variants and parameters: the heuristic default, tuning database, autotuner."""

from .choice import Choice, choose

__all__ = ["Choice", "choose"]
