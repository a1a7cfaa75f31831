"""naive: one work-item per element of C (the seed reports' first GPU kernel)."""

from .base import WORK_GROUP_SPACE, Variant


class Naive(Variant):
    name = "naive"
    source_file = "naive.cl"
    summary = "one work-item per element of C, operands from global memory"
    space = dict(WORK_GROUP_SPACE)
    defaults = {"wg_y": 16, "wg_x": 16}
