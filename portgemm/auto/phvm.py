"""The paper's time-cost model of PHVM (seed 001, section 3, equations 1-11), which picks
the grid size GS and block size BS of the ``phvm`` kernel.

For C = A @ B with A M x K, B K x N, M, N << K, the model charges each of the M * N
elements of C one after another (1):

    t_prep = K / (BS * GS) * (2 sigma_g + sigma_add + sigma_mul)            (7), (11)
             + sigma_s + ln(BS) * (sigma_add + 3 sigma_s) / u_SM
    t_post = sigma_s + sigma_g + sigma_add + sigma_g                        (8)
    t_elem = t_prep + GS * t_post                  if t_prep <  CoreS/BS * t_post    (9)
           = GS*BS/CoreS * t_prep + CoreS/BS * t_post   otherwise                   (10)
    cost   = M * N * t_elem

over the configurations that keep every thread slot of the device busy (2)-(4):
BS * GS = SMS * SM_NUM, BS a multiple of the warp width WS, SMS a multiple of BS (and BS
within the device's work-group limit).

Three places of the paper's text admit more than one reading; the one taken here is the
only one (of 3 logarithms x 2 forms of (10) x 5 placements of 1/u_SM) that gives the
optima the paper reports from its own constant tables (RTX 2080 Ti: GS=136, BS=512;
A100-PCIE-40GB: GS=864, BS=256), which tests/test_tallskinny.py checks:

* "log BS" is the natural logarithm (log2 or log10 give other optima);
* the second term of (10) is CoreS/BS * t_post: the typeset GS factor is left out (with
  it, both devices' optimum moves to BS = 1024);
* 1/u_SM multiplies the reduction term ln(BS) (sigma_add + 3 sigma_s), as (11) is
  typeset (applying it to the whole of t_prep gives the same optima; applying it to the
  load term alone, or not at all, does not).

On a CPU two readings are ours, not the paper's.

* GS is made odd (GS + 1 where it would be even). A work-item's loads run one after
  another on one core, GS * BS elements apart; where that stride is a power of two of
  4 KB or more, every load of a work-item falls in the same few sets of the core's L1
  cache, and the paper's kernel ran 3-4 times slower for it (the model's own 128 x 16 on
  a Zen 5: 290 ms at 5 x 5 x 3e6, against 67-98 ms at odd GS from 125 to 141; its
  Algorithm 1 as written, ``bench/results/2026-11-23-cpu-zen5-phvm-stride/``). A GPU's
  warp reads a whole stride's span at once, and the H200's sweep found no such penalty.
* Constraint (2) gives way to a run of K, and (9)-(10)'s choice of BS to a measured one.
  A CPU has no count of resident threads: its cores run the groups one after another,
  and what keeps its memory busy is how long a run of K each work-item walks and how
  many work-items a group holds. Each step of a run lands on another page of A and of B
  (the next work-item reads the next values of the same pages, fast while the core's
  TLB and caches still hold them), and how that goes with a group's size no OpenCL
  query tells. So the grid is the one that gives every work-item a run of ``run``
  steps (GS * BS = K / run, a group a core at least) in groups of ``group``, the pair
  at which the paper's kernel itself (Algorithm 1 as written, at a small tall-skinny
  shape) ran fastest over a grid of runs and group sizes (``run_steps``,
  ``group_size``: :func:`portgemm.runtime.probe.walk_times`).
  How that reading came about:

  - The run first (probe version 3) came from a plain walk of two streams at one group
    size, and along its line the model took the largest BS, the fewest groups (a core
    pays each group's tree and atomic add in turn: 68 ns a group at BS = 16, 282 ns at
    512 on the Xeon of model 167). There (run 16) the paper's Algorithm 1 at 5 x 5 x 3e6
    took 426 ms on (2)'s grid (129 x 16, 1453 steps a work-item), 8.7x the fastest, and
    52 ms on the run's (11719 x 16), 1.06x; 185 x 1024 was 1.02-1.11x in turns, (10)'s
    smallest BS 1.15-1.23x (``bench/results/2026-11-25-cpu-xeon-phvm-runs``,
    ``-groups``). On the Xeon of model 207 (run 16 too) that point came at 1.00-1.17x.
  - On a Zen 5 that walk ran at full speed to 128 steps, but the paper's kernel did not
    at BS = 1024: 23 x 1024 took 1.8-1.9x the fastest in turns, while BS = 16-64 on the
    same line came within 1.1x. Timing the paper's kernel over both run and group size
    put its point at 1.00-1.14x in five runs, within 10% in four
    (``bench/results/2026-11-27-cpu-zen5-phvm``).

The model's unit is whatever the sigmas are in: the paper's tables are in clock cycles,
:func:`constants_for` measures a device in nanoseconds (:mod:`portgemm.runtime.probe`);
the optimum does not depend on the unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..runtime.device import Device
from ..runtime.probe import made_odd, run_grid
from .traits import traits


@dataclass(frozen=True)
class PhvmConstants:
    """A device as the model sees it (the paper's Tables 3 and 4)."""

    name: str
    sm_num: int       # SM_NUM: compute units
    sms: int          # SMS: resident work-items per compute unit
    ws: int           # WS: warp / sub-group / SIMD width
    cores: int        # CoreS: work-items the device executes at the same time
    add: float        # sigma_add: one floating-point add
    mul: float        # sigma_mul: one floating-point multiply
    g: float          # sigma_g: one global-memory access
    s: float          # sigma_s: one shared (local) memory access
    u_sm: float       # u_SM: how busy the compute units are while PHVM runs
    unit: str = "cycles"
    max_bs: int = 1024  # the largest work-group the device runs
    odd_grid: bool = False  # GS made odd: a CPU, where a power-of-two stride aliases
    run: int = 0  # a CPU: steps of K a work-item runs (the grid is K / run); 0: (2)'s grid
    group: int = 0  # a CPU: the BS the probe's walk ran fastest at; 0: the largest BS


# Tables 3 and 4 of the paper (latencies in clock cycles; u_SM from Nsight Compute).
NAMED = {
    "rtx2080ti": PhvmConstants("rtx2080ti", 68, 1024, 32, 4352, 1, 2, 346, 49.39, 0.27),
    "a100-pcie-40gb": PhvmConstants("a100-pcie-40gb", 108, 2048, 32, 6912, 1, 2, 317, 34.46,
                                    0.16),
}


def t_prep(c: PhvmConstants, k: int, gs: int, bs: int) -> float:
    """Equations (7) and (11): the loads and products of one element, and its group tree."""
    loads = k / (bs * gs) * (2 * c.g + c.add + c.mul)
    return loads + c.s + math.log(bs) * (c.add + 3 * c.s) / c.u_sm


def t_post(c: PhvmConstants) -> float:
    """Equation (8): one group's atomic addition into C."""
    return c.s + c.g + c.add + c.g


def t_element(c: PhvmConstants, k: int, gs: int, bs: int) -> float:
    """Equations (9) and (10): one element of C, the two cases of the paper."""
    prep, post = t_prep(c, k, gs, bs), t_post(c)
    if prep < c.cores / bs * post:                       # (9): the atomics are the bottleneck
        return prep + gs * post
    return gs * bs / c.cores * prep + c.cores / bs * post  # (10): the loads hide them


def cost(c: PhvmConstants, m: int, n: int, k: int, gs: int, bs: int) -> float:
    """Equation (1): the model's time of the whole product, in the constants' unit."""
    return m * n * t_element(c, k, gs, bs)


def configurations(c: PhvmConstants, k: int | None = None) -> list[tuple[int, int]]:
    """(GS, BS) pairs allowed by (2)-(4): every thread slot busy, BS = k1 WS, SMS = k2 BS
    (with ``odd_grid``, GS rounded up to an odd count). Where ``c.run`` is set (a CPU)
    and ``k`` given, GS x BS is instead at least K / run, BS as (3)-(4) allow, and GS
    at least a group a compute unit."""
    found = []
    for bs in range(c.ws, min(c.sms, c.max_bs) + 1, c.ws):
        if c.sms % bs == 0 and (c.sms * c.sm_num) % bs == 0:
            found.append((run_grid(k, c.run, bs, c.sm_num, c.odd_grid) if c.run and k else
                          made_odd(c.sms * c.sm_num // bs, c.odd_grid), bs))
    return found


def optimum(c: PhvmConstants, m: int, n: int, k: int) -> tuple[int, int, float]:
    """(GS, BS, cost) of the cheapest allowed configuration; on a CPU's line of a run
    (``c.run`` and ``k``), the probe's group size (the largest allowed BS up to it; with
    none measured, the largest), as the module's text says."""
    found = [(gs, bs, cost(c, m, n, k, gs, bs)) for gs, bs in configurations(c, k)]
    if c.run and k:
        return max((point for point in found if point[1] <= (c.group or c.max_bs)),
                   key=lambda point: point[1], default=found[0])
    return min(found, key=lambda point: point[2])


# --- a real device's constants ------------------------------------------------------

DEFAULT_U_SM = 0.2  # between the paper's two measurements (0.16, 0.27); no OpenCL query has it


def constants_for(device: Device, *, u_sm: float = DEFAULT_U_SM,
                  fresh: bool = False) -> PhvmConstants:
    """The model's constants for an OpenCL device: its counts from the driver and
    :mod:`portgemm.auto.traits`, its latencies measured by the probe (nanoseconds)."""
    from ..runtime.probe import probe

    measured = probe(device, fresh=fresh)
    known = traits(device)
    return PhvmConstants(device.name, known.compute_units, known.resident, known.simd,
                         known.compute_units * known.lanes, measured.add_ns,
                         measured.mul_ns, measured.global_ns, measured.local_ns, u_sm,
                         unit="ns", max_bs=known.max_group, odd_grid=strides_alias(device),
                         run=measured.run_steps, group=measured.group_size)


def strides_alias(device: Device) -> bool:
    """Whether a power-of-two grid stride puts a work-item's loads in few cache sets: on
    a CPU, whose cores run one work-item's loads in sequence (see the module's text)."""
    return device.type == "cpu"


def with_u_sm(c: PhvmConstants, u_sm: float) -> PhvmConstants:
    return replace(c, u_sm=u_sm)
