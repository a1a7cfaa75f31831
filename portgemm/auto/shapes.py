"""Shape classes: how ``variant="auto"`` and the tuning database group GEMM shapes.

A class goes by the largest of M, N, K: ``small`` below 512, ``large`` from 2048,
``medium`` between. :func:`class_order` lists the classes nearest first, for a shape
whose own class has no usable entry.
"""

from __future__ import annotations

import math

SHAPE_CLASSES = ("small", "medium", "large")
SMALL_BELOW, LARGE_FROM = 512, 2048


def shape_class(m: int, n: int, k: int) -> str:
    """small (max dim < 512), medium, or large (max dim >= 2048)."""
    biggest = max(m, n, k)
    return "small" if biggest < SMALL_BELOW else "large" if biggest >= LARGE_FROM else "medium"


def class_order(m: int, n: int, k: int) -> list[str]:
    """Shape classes nearest first: the shape's own, then by distance of log(max dim)
    from each class's range."""
    biggest = math.log(max(m, n, k))
    bounds = {"small": (0.0, math.log(SMALL_BELOW)),
              "medium": (math.log(SMALL_BELOW), math.log(LARGE_FROM)),
              "large": (math.log(LARGE_FROM), math.inf)}
    own = shape_class(m, n, k)

    def distance(name):
        low, high = bounds[name]
        return 0.0 if name == own else min(abs(biggest - low), abs(biggest - high))
    return sorted(SHAPE_CLASSES, key=lambda name: (distance(name), name != own))
