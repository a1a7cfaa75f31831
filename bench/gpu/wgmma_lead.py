"""Candidate parameter sets taken in turns on the same operands beside cuBLAS: kernel
times (OpenCL events, median of each round's median), relative error against float64.
By default wgmma read one slab ahead (LEAD 1) or two (LEAD 2). A candidate is a parameter
set of --variant, or of the variant its "variant" key names ({"variant": "auto"}: auto's
own choice, recorded beside its time).

    python3 bench/gpu/wgmma_lead.py --json lead.json [--rounds 5] [--shapes 4096x4096x4096:1,...]
    python3 bench/gpu/wgmma_lead.py --variant mma --dtype float64 --shapes 4096x4096x4096 \
        --candidate 'registers={"WM": 1, "WN": 4}' --candidate 'async={"ASYNC_STAGES": 3}'
    python3 bench/gpu/wgmma_lead.py --dtype float64 --shapes 16x4096x4096 \
        --candidate 'auto={"variant": "auto"}' --candidate 'ku4={"variant": "wide", "KU": 4}'

A shape is MxNxK or MxNxK:KSPLIT (the split auto's model or entry gives it); a candidate's
"KSPLIT": "model" takes the split auto's model gives its own tile on each shape, and
{"variant": "tallskinny" or "wide", "model": true} that variant's own model's parameters
(with any other keys of the candidate set over them), and
"constants": {"portgemm.auto.tallskinny.MIN_TERMS": 8, ...} those of the model's module
constants set while it runs (auto's before or a proposed rule, in the same process). Each round
times every candidate once (5 runs after 2 warm-ups), in an order rotated by one each
round, so that a drift of the machine's speed falls on all of them alike.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics

import numpy as np

import portgemm

from shapes import cublas_ms, random_operands

LARGE = {"WN": 64, "WGM": 2, "WGN": 2, "KS": 2, "PAD": 0}  # the Hopper entries' tile to 2026-11-25
CANDIDATES = {
    "lead 1": dict(LARGE, LEAD=1),
    "lead 2": dict(LARGE, LEAD=2),
    "lead 2 KS 1": dict(LARGE, LEAD=2, KS=1),
    "lead 1 KS 1": dict(LARGE, LEAD=1, KS=1),
    "wide lead 1": dict(LARGE, WN=128, WGN=1, LEAD=1),  # the same 128 x 128 tile, 256 work-items
    "wide lead 2": dict(LARGE, WN=128, WGN=1, LEAD=2),
}
SHAPES = ("4096x4096x4096:1,8192x8192x8192:1,2048x2048x2048:1,1024x1024x16384:4,"
          "1000x1000x1000:2,4097x4097x4097:3")
MORE = ("512x512x512:8,768x768x768:2,1500x1500x1500:4,2047x2047x2047:1,768x768x16384:32,"
        "2048x1024x16384:1,1024x1024x65536:4")


def split_operands(spec: str, seed: int):
    """(KSPLIT or None, m, n, k, A, B, A @ B in float64) for each MxNxK[:KSPLIT] of a
    comma-separated spec (shapes.random_operands)."""
    shapes, splits = zip(*((item.split(":") + [None])[:2] for item in spec.split(",")))
    for split, operands in zip(splits, random_operands(",".join(shapes), seed)):
        yield (split and int(split), *operands)


def model_split(device, variant, params, m, n, k, itemsize):
    """``params`` with the KSPLIT that auto's split-K model gives its tile on this shape."""
    from portgemm.auto.splitk import ksplit
    from portgemm.families import get_variant

    resolved = get_variant(variant).resolve({**params, "KSPLIT": 1})
    return {**params, "KSPLIT": ksplit(device, resolved, m, n, k, itemsize, variant)[0]}


def own_model(device, variant, m, n, k, itemsize, constants=None):
    """The parameters tallskinny's or wide's model gives this shape (what auto runs where
    the shape's class routes there), with ``constants`` ({"module.NAME": value}) set in
    their modules while it runs."""
    from portgemm.auto.default import BANDWIDTH_MODELS

    saved = {}
    try:
        for dotted, value in (constants or {}).items():
            module, name = dotted.rsplit(".", 1)
            module = importlib.import_module(module)
            saved[module, name] = getattr(module, name)  # a misspelt name fails here
            setattr(module, name, value)
        return BANDWIDTH_MODELS[variant](device, m, n, k, itemsize)[0]
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)


def kernel_ms(a_dev, b_dev, params, variant="wgmma", reps=5, warmup=2):
    runs = [portgemm.gemm(a_dev, b_dev, variant=variant, params=params)
            for _ in range(reps + warmup)]
    return statistics.median(r.kernel_ms for r in runs[warmup:]), runs[-1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--json", default="lead.json")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--shapes", default=SHAPES, help=f"default {SHAPES}; 'more': {MORE}")
    p.add_argument("--candidates", default=",".join(CANDIDATES))
    p.add_argument("--candidate", action="append", default=[], metavar="NAME=JSON",
                   help="a parameter set of --variant (repeatable; replaces --candidates)")
    p.add_argument("--variant", default="wgmma")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = p.parse_args()
    device = portgemm.select_device(args.device)
    candidates = dict(CANDIDATES)
    for item in args.candidate:
        name, params = item.split("=", 1)
        candidates[name] = json.loads(params)
    names = ([item.split("=", 1)[0] for item in args.candidate] if args.candidate else
             args.candidates.split(","))
    rows = []
    print(device.description, flush=True)
    for split, m, n, k, a, b, ref in split_operands(MORE if args.shapes == "more" else args.shapes, 7):
        a, b = a.astype(args.dtype), b.astype(args.dtype)  # float64: the same values
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        times = {name: [] for name in names}
        errors, chosen = {}, {}
        cublas = []
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                params = dict(candidates[name], **({"KSPLIT": split} if split else {}))
                variant = params.pop("variant", args.variant)
                if params.get("KSPLIT") == "model":  # the split auto's model gives this tile
                    params = model_split(device, variant, params, m, n, k, a.itemsize)
                constants = params.pop("constants", None)
                if params.pop("model", False):  # tallskinny's or wide's own model, and
                    # the candidate's other keys over it
                    params = {**own_model(device, variant, m, n, k, a.itemsize, constants),
                              **params}
                ms, result = kernel_ms(a_dev, b_dev, None if variant == "auto" else params,
                                       variant)
                times[name].append(ms)
                chosen[name] = (result.variant, result.params)
                c = result.c.get()
                errors[name] = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
            cublas.append(cublas_ms(a, b))
        ref_ms = statistics.median(cublas) if cublas[0] is not None else None
        row = {"m": m, "n": n, "k": k, "KSPLIT": split, "cublas_ms": ref_ms,
               "cublas_rounds": cublas, "candidates": {}}
        for name in names:
            ms = statistics.median(times[name])
            row["candidates"][name] = {"kernel_ms": ms, "rounds": times[name],
                                       "tflops": 2e-9 * m * n * k / ms,
                                       "of_cublas": ref_ms and ref_ms / ms,
                                       "relerr": errors[name], "variant": chosen[name][0],
                                       "params": chosen[name][1]}
        rows.append(row)
        line = "  ".join(f"{name}: {c['kernel_ms']:.4f} ms ({(c['of_cublas'] or 0):.1%}, "
                         f"{c['relerr']:.1e})" for name, c in row["candidates"].items())
        print(f"{m}x{n}x{k} split {split}  cuBLAS {ref_ms and round(ref_ms, 4)} ms  {line}",
              flush=True)
        del a_dev, b_dev
    with open(args.json, "w") as f:
        json.dump({"device": device.description, "variant": args.variant, "dtype": args.dtype,
                   "rounds": args.rounds, "candidates": {name: candidates[name] for name in names},
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
