"""``python -m portgemm.tune --model phvm|tallskinny``: what a cost model chooses for the
tall-skinny kernels, and (``--sweep``) a GS x BS sweep measured beside it.

    python -m portgemm.tune --model phvm --constants a100-pcie-40gb     # GS=864 BS=256
    python -m portgemm.tune --model phvm --device gpu --sizes 8x8x33554432 --sweep
    python -m portgemm.tune --model tallskinny --device intel --sizes 8x8x4194304 --sweep
    python -m portgemm.tune --model phvm --device gpu --sweep --param ELEMENT_LAUNCHES=1
"""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np
from tabulate import tabulate

from ..auto import phvm as paper
from ..auto.tallskinny import tallskinny_params
from ..auto.traits import traits
from ..runtime.device import Device
from ..runtime.probe import probe
from .sweep import FINALISTS, at, fastest, grid, rematch, sweep_rounds

MODELS = ("phvm", "tallskinny")
PAPER_SIZE = (5, 5, 30_000_000)  # the paper's MTX1
REMATCH_ROUNDS = 5  # turns of the sweep's fastest points and the model's, timed again


def predict_named(name: str, sizes: Sequence[tuple[int, int, int]], u_sm: float | None) -> list[str]:
    """The paper's model with one of its own constant tables: lines to print."""
    constants = paper.NAMED[name]
    if u_sm is not None:
        constants = paper.with_u_sm(constants, u_sm)
    lines = [f"phvm model, constants {name} (paper Tables 3-4): SM_NUM={constants.sm_num} "
             f"SMS={constants.sms} WS={constants.ws} CoreS={constants.cores} "
             f"sigma_add={constants.add} sigma_mul={constants.mul} sigma_g={constants.g} "
             f"sigma_s={constants.s} u_SM={constants.u_sm}"]
    for m, n, k in sizes:
        gs, bs, cost = paper.optimum(constants, m, n, k)
        lines.append(f"{m}x{n}x{k}: GS={gs} BS={bs} (predicted {cost:.4g} {constants.unit})")
    return lines


def predict_device(model: str, device: Device, sizes, *, u_sm: float | None,
                   run_sweep: bool, reps: int, out: str | None,
                   fixed: dict | None = None, rounds: int = 1,
                   dtype: str = "float32") -> list[str]:
    """The model's choice on a real device, and with ``run_sweep`` the measured grid
    (the kernel's other parameters: the model's, then ``fixed``), ``rounds`` times over
    with each point's median (:func:`sweep_rounds`), in ``dtype`` (the paper's model
    has no element size; tallskinny's weighs it)."""
    itemsize = np.dtype(dtype).itemsize
    measured = probe(device)
    lines = [f"{device.description}: probe {measured}"]
    records = []
    for m, n, k in sizes:
        if model == "phvm":
            constants = paper.constants_for(device, u_sm=paper.DEFAULT_U_SM if u_sm is None else u_sm)
            gs, bs, cost = paper.optimum(constants, m, n, k)
            extra = [g for g, _ in paper.configurations(constants, k)]
            params = {}
            lines.append(f"phvm model, measured constants: SM_NUM={constants.sm_num} "
                         f"SMS={constants.sms} WS={constants.ws} CoreS={constants.cores} "
                         f"u_SM={constants.u_sm}"
                         + (f" run={constants.run} group={constants.group} (a CPU: the "
                            f"probe's run and group, GS x BS = K / run)"
                            if constants.run else ""))
            lines.append(f"{m}x{n}x{k}: GS={gs} BS={bs} (predicted {cost:.4g} ns)")
        else:
            chosen, why = tallskinny_params(device, m, n, k, itemsize)
            gs, bs = chosen["GS"], chosen["BS"]
            params = {key: value for key, value in chosen.items() if key not in ("GS", "BS")}
            extra = [gs]
            lines.append(f"{m}x{n}x{k}: GS={gs} BS={bs} tile {params['tile_y']}x"
                         f"{params['tile_x']} ({why})")
        params.update(fixed or {})
        if not run_sweep:
            continue
        known = traits(device)
        # fewer work-items than a sixteenth of what the device holds only show the device
        # idle (and cost seconds a point for the paper's kernel, M*N passes over K); the
        # model's own point is always measured
        points = [(g, b) for g, b in grid(device, extra, simd=known.simd,
                                          odd=paper.strides_alias(device))
                  if g * b >= known.slots // 16 or (g, b) == (gs, bs)]
        rows_form = bool(params.get("ROWVEC"))
        lanes = {**params, "ROWVEC": 0, "FLAT": 0, "KU": 1} if rows_form else params
        if rows_form:
            # a CPU's rows as vectors (BS = 1) over its groups, beside the lanes' form
            by_rows = [(g, 1) for g in sorted({g for g, _ in points} | {gs})]
            found = (sweep_rounds(rounds, model, device, (m, n, k), by_rows, params=params,
                                  reps=reps, dtype=dtype)
                     + sweep_rounds(rounds, model, device, (m, n, k), points, params=lanes,
                                    reps=reps, dtype=dtype))
            lines.append("BS=1: ROWVEC=1 (each row of the tile a vector, or B's rows "
                         "in whole vectors: FLAT=1); BS > 1: the lanes' form (ROWVEC=0)")
        else:
            found = sweep_rounds(rounds, model, device, (m, n, k), points, params=params,
                                 reps=reps, dtype=dtype)
        best, mine = fastest(found), at(found, gs, bs)
        rows = [(p.gs, p.bs, "" if p.kernel_ms is None else f"{p.kernel_ms:.3f}",
                 "" if p.relerr is None else f"{p.relerr:.1e}", p.status,
                 "model" if (p.gs, p.bs) == (gs, bs) else "")
                for p in found if p.status != "invalid"]
        lines.append(tabulate(rows, headers=["GS", "BS", "kernel ms", "rel err", "status", ""],
                              disable_numparse=True))
        if not rows and found:  # (the table leaves invalid points out)
            lines.append(f"no point of the grid runs here: {found[0].message}")
        if best is not None and mine is not None and mine.kernel_ms is not None:
            lines.append(f"fastest: GS={best.gs} BS={best.bs} {best.kernel_ms:.3f} ms; the model's "
                         f"GS={gs} BS={bs} {mine.kernel_ms:.3f} ms = "
                         f"{mine.kernel_ms / best.kernel_ms:.3f}x the fastest")
        final = []
        if mine is not None and mine.kernel_ms is not None:
            turns = max(REMATCH_ROUNDS, rounds)
            final = rematch(model, device, (m, n, k), found, (gs, bs),
                            lambda g, b: lanes if b > 1 else params, rounds=turns,
                            dtype=dtype)
            top, again = final[0], next(row for row in final if row[:2] == (gs, bs))
            lines.append(f"timed again, {turns} rounds in turn (the "
                         f"sweep's fastest {FINALISTS} and the model's): "
                         + ", ".join(f"GS={g} BS={b} {ms:.3f}" for g, b, ms in final)
                         + f" ms; the model's = {again[2] / top[2]:.3f}x the fastest")
        records.append({"model": model, "device": device.description, "m": m, "n": n, "k": k,
                        "dtype": dtype, "rounds": rounds,
                        "predicted": {"GS": gs, "BS": bs, **params},
                        "probe": measured.__dict__,
                        "sweep": [p.__dict__ for p in found],
                        "again": [{"gs": g, "bs": b, "kernel_ms": ms} for g, b, ms in final]})
    if out:
        with open(out, "w") as f:
            json.dump(records, f, indent=1)
    return lines
