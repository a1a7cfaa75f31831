"""``choose``: the variant and parameters ``variant="auto"`` runs, and why.

The tuning database first (the user's, then the package's; :mod:`portgemm.auto.lookup`
says how an entry is picked), else a default from the device's properties
(:mod:`portgemm.auto.default`). The parameters are checked against the device here,
once; ``matmul`` asks on every call, so answers are remembered until a database changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import inf, prod
from pathlib import Path
from typing import Any, Sequence

from ..caches import cache_dict
from ..parallel import is_int
from ..runtime.device import Device
from ..families import REGISTRY, get_variant
from ..families.mma import skinny_tiles
from ..families.wgmma import SQUARE_64, runs_wgmma
from .compiler import compiler_kind
from .database import DTYPES, default_sources_key, file_stamp
from .default import default_choice
from .lookup import Found, lookup
from .packing import fit_packing
from .shallow import shallow_params
from .shapes import SIZE_CLASSES, class_order, device_class
from .splitk import MOSTLY_PADDING, fitting_tile, ksplit, padding, run_split, waves

MEMO_LIMIT = 1024
# a tall C of at least this many columns, in float64 where the tensor cores take it, goes
# to their tiles (mma, K split by the model) rather than to tallskinny, whose work-items
# hold 2 registers a double: on an H100 4096 x 16 x 4096 ran at 45% of cuBLAS in
# tallskinny, 98-103% on mma's 128 x 16 tile split 8 ways, 4096 x 12 x 4096 at 80%
# against 97-104%; a C of 8 columns kept 124-150% in tallskinny, 102% at best on mma
# (bench/results/2026-11-26-h100-store-pairs); 9-11 columns ran 1.04-1.63x faster on
# the 128 x 16 tile than in tallskinny at five of eight shapes, 0.98-1.00x at two, 8
# columns 0.84-0.85x, in 128 x 8 as well (bench/results/2026-11-26-hopper-fitted-tiles);
# float32's tallskinny keeps its tall C
TENSOR_TALL_COLUMNS = {8: 9}
# ... and a wide C of at least this many rows, by itemsize, rather than to the wide
# kernel: on an H100 mma's 16 x 128 and 32 x 128 tiles ran 8-32 x 4096 x 4096 1.5-2.3x
# faster than it in float64, at 114-141% of cuBLAS, 16-32 rows 1.1-1.5x in float32
# (bench/results/2026-11-26-hopper-narrow-tiles); in float64 4-7 rows 1.03-1.32x at four
# of five shapes, 0.96x at one, 1-3 rows 0.92-1.11x (bench/results/2026-11-26-hopper-
# fitted-tiles); in float32 12-14 rows 1.01-2.03x at twelve shapes (700-4096 columns,
# K = 4096 and 65536), where 10 rows ran 0.93-1.24x and 6-8 rows 0.72-1.17x
# (bench/results/2026-11-27-h100-small-c)
TENSOR_WIDE_ROWS = {8: 4, 4: 12}
# a tuned tile that pads a side of C this many times over gives way, on a GPU, to the tile
# of its own family that fits C best: its entries' and presets' (on the H200, C of 17-64
# columns ran 1.2-2.6x faster in mma's 128 x 32 and wgmma's 128 x 64 tiles than in the
# 64 x 64, 64 x 128 and 128 x 128 tiles of the entries before;
# bench/results/2026-11-26-hopper-narrow-tiles)
NARROW_PADDING = 1.5
# Where wgmma runs, a float32 C that the fitting tile gives xgemm's 64 x 64 takes wgmma's
# 64 x 64 (wgmma.SQUARE_64) at a K of at most SQUARE_64_MOST_K: on an H100, each split
# by the model, 1.06-1.43x faster at thirteen shapes of 24-64 rows and 48-8192 columns
# over K = 4096-65536 (36 x 1427 x 40812 84% -> 119% of cuBLAS, 33 x 5000 x 5000 79% ->
# 113%); at K = 2^21 0.89-1.07x (64 x 64 x 2^21 0.90x). As a preset weighed by its cost
# it also took C that wgmma's 64 x 32 served (0.86-1.02x) (bench/results/2026-11-27-h100-
# short-reads)
SQUARE_64_MOST_K = 65536
# ... and so does the small class's xgemm 64 x 64 entry: on the H200 wgmma's 64 x 64 ran
# 1.07-1.80x faster at all 40 shapes of sides 96-511 and K = 24-511; in turns of whole
# processes 1.15-1.65x (H200) and 1.04-1.65x (H100) at eight (bench/results/2026-11-27-
# h200-few-tiles)
#
# Where the model splits a K of at most SHORT_SPLIT_K two ways on a shipped entry's tile of
# the tensor cores' families, the family's tile of half the area takes C instead:
# it makes as many groups as the split, without the second pass that sums the slices (a
# launch of its own, 5-6 us on the H200, against kernels of 15-40 us). On the H200,
# wgmma's 128 x 64 in place of its 128 x 128 ran 1.06-1.60x faster at 22 float32 shapes
# of K = 160-512 and mma's 64 x 64 in place of its 64 x 128 1.08-1.83x at 24 float64
# shapes of K = 64-512; in turns of whole processes 1.11-1.45x (float32) and 1.09-1.75x
# (float64) on the H200, 1.12-1.46x and 1.12-1.77x on the H100. Where the split was 4-8
# ways the half tile ran 0.94-1.12x, past K = 512 0.76-1.03x in float32 and 0.94-1.29x
# in float64 (bench/results/2026-11-27-h200-few-tiles)
SHORT_SPLIT_K = 512
HALF_TILE_FAMILIES = ("wgmma", "mma")  # the families whose half tiles were timed ...
HALF_TILE_SIDE = 64  # ... 128 x 64 and 64 x 64, none narrower
# Where the model keeps K whole on a shipped float64 mma tile (64 x 128), the half tile
# (64 x 64) takes C when it covers C in no more waves (splitk.waves: tiles over compute
# units x the groups a unit holds, 2 of 64 x 128, 3 of 64 x 64 on the H200): each wave
# then does half the work. On the H200, where it did, 64 x 64 ran 0.96-1.41x the entry's
# time at 49 shapes of K = 48-3500 (896 x 2560: 1.06-1.14x at every K; 1024 x 1024 x 64
# 1.41x; 1664 x 1664 0.98-1.07x); where it needed more waves, 0.87-1.03x at 27 (1300 x
# 1300, 1408 x 1408, 600 x 2500, 2048 x 2048 and larger). In turns of whole processes at
# nine shapes 0.97-1.15x on the H200, 0.84-1.12x on the H100 (1.10-1.12x at 896 x 2560
# from K = 1024; the kernels of 12-16 us moved with the control, 0.81-0.95x). wgmma's
# 128 x 64 and 128 x 128 take one group a unit each (bench/results/2026-11-27-h200-few-
# tiles)
WAVE_HALF_FAMILIES = ("mma",)  # of HALF_TILE_FAMILIES
# Families whose models fit the tile to C itself (compiled in: tallskinny's whole C, the
# wide kernel's rows): an entry tuned at one C serves only a C of those rows and columns.
# On Intel's CPU runtime a tallskinny entry of 5 x 5 ran 16 x 16 x 100000 1.8-3.8x, and
# 256 x 256 x 8192 6x, slower than the model's own tiles.
C_FITTED_FAMILIES = ("tallskinny", "wide")


@dataclass(frozen=True)
class Choice:
    variant: str
    params: dict[str, Any]   # checked against the device and dtype
    reason: str
    source: str = "model"    # "user" or "shipped" (a tuning database), or "model"


_memo: dict = cache_dict("portgemm.auto.choice._memo")


def choose(device: Device, m: int, n: int, k: int, itemsize: int = 4, *,
           sources: Sequence[tuple[str, str | Path]] | None = None,
           layout: str = "CC") -> Choice:
    """The variant and parameters for this device and shape, with the reason.

    ``sources`` replaces the databases consulted: (label, path) pairs, first wins.
    ``layout``: A's order and B's ("CC", "CF", "FC", "FF"); the models weigh it where it
    changes what is fastest, the databases do not.
    """
    if not all(is_int(x) and x >= 1 for x in (m, n, k)):  # (a division by 0 in a model)
        raise ValueError(f"choose takes M, N and K >= 1, got {m} x {n} x {k} (a product "
                         f"with a dimension of 0 runs no kernel)")
    sources = (default_sources_key() if sources is None
               else tuple((label, Path(path)) for label, path in sources))
    stamps = tuple((label, path, file_stamp(path)) for label, path in sources)
    # the handle is not part of a Device's equality; its compute capability picks entries
    key = (device, device.compute_capability, m, n, k, itemsize, stamps, layout)
    choice = _memo.get(key)
    if choice is None:
        if len(_memo) > MEMO_LIMIT:
            _memo.clear()
        choice = _memo[key] = _choose(device, m, n, k, itemsize, sources, layout)
    # a copy of the params: a caller's edit must not reach later calls unchecked
    return replace(choice, params=dict(choice.params))


def _choose(device: Device, m: int, n: int, k: int, itemsize: int,
            sources: Sequence[tuple[str, Path]], layout: str) -> Choice:
    own, why = device_class(device, m, n, k, itemsize)
    context = f"shape class {own} ({why})"
    # a GPU splits a deep K across groups (KSPLIT, with the tile that fits C: the class's
    # own entry where it does); a CPU's few cores are kept busy by the tiles of C, so the
    # size classes serve it
    if own == "deep-k" and compiler_kind(device) == "gpu":
        return _fitting_tile(device, m, n, k, itemsize, sources, context, layout)
    shallow = shallow_params(device, own, m, n, k, itemsize)
    if shallow is not None:
        params, why_vec = shallow
        return _fit_to_shape(device, m, n, k, itemsize, "vec", params,
                             f"{context}; {why_vec}", "model")
    if own == "skinny" and _skinny_on_tensor_cores(device, m, n, itemsize):
        context += (f"; a tall C of {n} columns (>= {TENSOR_TALL_COLUMNS[itemsize]})"
                    if n < m else f"; a wide C of {m} rows (>= {TENSOR_WIDE_ROWS[itemsize]})")
        context += f" in {DTYPES[itemsize]} goes to the tensor cores' tiles"
        return _fitting_tile(device, m, n, k, itemsize, sources, context, layout)
    found, notes = lookup(device, m, n, k, itemsize, sources,
                          classes=class_order(m, n, k, own))
    if found is not None and _pads_a_side(device, found.entry.variant, found.params, m, n):
        return _fitting_tile(device, m, n, k, itemsize, sources,
                             f"{context}; the {found.shape_class}-class entry's tile pads C "
                             f"{NARROW_PADDING}x or more", layout, found=found)
    if found is not None and not _tuned_for_c(found, m, n):
        notes.append(f"the {found.entry.source} {found.entry.variant} entry was tuned for C "
                     f"of {_tuned_cs(found)}, not {m} x {n}, and fits its tile to that C")
        found = None
    if found is not None:
        return _fit_to_shape(device, m, n, k, itemsize, found.entry.variant, found.params,
                             f"{context}; {found.reason}", found.entry.source, sources)
    variant, params, reason = default_choice(device, m, n, k, itemsize, layout)
    if notes:
        reason += "; passed over: " + "; ".join(notes)
    return _fit_to_shape(device, m, n, k, itemsize, variant, params, reason, "model")


def _tuned_cs(found: Found) -> str:
    return ", ".join(sorted({f"{s[0]} x {s[1]}" for s in found.entry.entry.get("sizes", [])}))


def _tuned_for_c(found: Found, m: int, n: int) -> bool:
    """Whether the entry serves a C of m x n: any entry of a family whose tile is C's own
    (C_FITTED_FAMILIES) only where it was tuned at such a C (one that names no sizes, as
    before)."""
    sizes = found.entry.entry.get("sizes")
    return (found.entry.variant not in C_FITTED_FAMILIES or not sizes
            or any(list(s[:2]) == [m, n] for s in sizes))


def _skinny_on_tensor_cores(device: Device, m: int, n: int, itemsize: int) -> bool:
    """Whether a skinny C is tall with TENSOR_TALL_COLUMNS or more columns, or wide with
    TENSOR_WIDE_ROWS or more rows, on a GPU where mma offers its skinny tiles."""
    least = (TENSOR_TALL_COLUMNS.get(itemsize, inf) if n < m else
             TENSOR_WIDE_ROWS.get(itemsize, inf))
    return (min(m, n) >= least and compiler_kind(device) == "gpu"
            and skinny_tiles(device, itemsize))


def _pads_a_side(device: Device, variant: str, params: dict, m: int, n: int) -> bool:
    """Whether a GPU tile of a family that splits K pads a side of C NARROW_PADDING
    times or more."""
    block = get_variant(variant).block(params)
    return (block is not None and compiler_kind(device) == "gpu"
            and padding(block, m, n) >= NARROW_PADDING)


def _fit_to_shape(device: Device, m: int, n: int, k: int, itemsize: int, variant: str,
                  params: dict, reason: str, source: str,
                  sources: Sequence[tuple[str, Path]] | None = None) -> Choice:
    """The choice, fitted to the shape: a packing family's tile and packing
    (:mod:`portgemm.auto.packing`), and K split by the model where the family can split:
    a C of few tiles, or an uneven last wave of them, gains; an even one keeps KSPLIT 1.
    Tuned parameters that say how (KSPLIT > 1) stand unless the model predicts far
    better. A family whose work-items add all of K in sequence splits it in runs. Where
    wgmma runs, xgemm's 64 x 64 float32 tile becomes wgmma's (SQUARE_64_MOST_K). Given
    the databases ``sources``, a shipped entry's tensor-core tile gives way to its
    family's tile of half the area where the model splits a short K two ways
    (SHORT_SPLIT_K), or, K whole, where the half tile takes no more waves of groups
    (WAVE_HALF_FAMILIES). A user's own entry keeps its tile."""
    if source != "user" and _takes_square_64(device, k, itemsize, variant, params):
        variant, params = "wgmma", get_variant("wgmma").resolve(SQUARE_64)
        reason += f"; taken in wgmma's 64 x 64 tile at K <= {SQUARE_64_MOST_K}"
        source = "model"
    impl = get_variant(variant)
    fitted, notes = fit_packing(impl, params, m, n, k, device.compute_units, itemsize)
    if notes:
        params = impl.check(fitted, device, itemsize)
        reason += "; " + "; ".join(notes)
    split = None
    if impl.block(params) is not None:
        split, why_split = ksplit(device, params, m, n, k, itemsize, variant)
        half = (_half_tile(device, m, n, k, itemsize, variant, params, sources)
                if source == "shipped" and sources is not None and split in (1, 2) else None)
        if half is not None:
            short = split == 2 and k <= SHORT_SPLIT_K
            if short or (split == 1 and variant in WAVE_HALF_FAMILIES
                         and waves(device, half[0], m, n, itemsize, variant)
                         <= waves(device, params, m, n, itemsize, variant)):
                why_half = (f"a short K (<= {SHORT_SPLIT_K}): the {half[1]}, half the tile, "
                            "in place of the split" if short else
                            f"the {half[1]}, half the tile, covers C in as few waves of groups")
                return _fit_to_shape(device, m, n, k, itemsize, variant, half[0],
                                     f"{reason}; {why_split}; {why_half}", "model")
    elif impl.splits_runs_of_k:
        split, why_split = run_split(device, params, m, n, k, itemsize)
    if split is not None:
        if split != params.get("KSPLIT", 1):
            params = impl.check({**params, "KSPLIT": split}, device, itemsize)
        if split > 1:
            reason += f"; {why_split}"
    layers = impl.effective(m, n, k, params).get("KSPLIT")
    if layers is not None and layers != params["KSPLIT"]:  # as the plan will run it
        params = impl.check({**params, "KSPLIT": layers}, device, itemsize)
    return Choice(variant, params, reason, source)


def _takes_square_64(device: Device, k: int, itemsize: int, variant: str,
                     params: dict) -> bool:
    """Whether xgemm's 64 x 64 float32 tile gives way to wgmma's (SQUARE_64_MOST_K)."""
    return (variant == "xgemm" and itemsize == 4 and k <= SQUARE_64_MOST_K
            and get_variant(variant).block(params)[:2] == (64, 64) and runs_wgmma(device))


def _half_tile(device: Device, m: int, n: int, k: int, itemsize: int, variant: str,
               params: dict, sources: Sequence[tuple[str, Path]]) -> tuple[dict, str] | None:
    """(params, where from) of the tile of ``variant``'s entries and presets with half
    the area of ``params``' tile (no side under HALF_TILE_SIDE) that fits C best, on a
    GPU and in HALF_TILE_FAMILIES; else None."""
    if variant not in HALF_TILE_FAMILIES or compiler_kind(device) != "gpu":
        return None
    rows, cols, _ = get_variant(variant).block(params)
    halves = [tile for tile in _family_tiles(device, m, n, k, itemsize, sources, variant)
              if _half_of(get_variant(variant).block(tile[1])[:2], rows * cols)]
    if not halves:
        return None
    _, params, origin, _ = halves[fitting_tile([tile[:2] for tile in halves], m, n)]
    return params, origin


def _half_of(sides: Sequence[int], area: int) -> bool:
    """Whether a tile of ``sides`` has half ``area`` and no side under HALF_TILE_SIDE."""
    return prod(sides) * 2 == area and min(sides) >= HALF_TILE_SIDE


def _family_tiles(device: Device, m: int, n: int, k: int, itemsize: int,
                  sources: Sequence[tuple[str, Path]], family: str | None = None) -> list:
    """(variant, checked params, where from, source) of the tiles at hand: the entries of
    the deep-K class and of the size classes (the largest first), then the presets of the
    families that split K; only ``family``'s where given."""
    tiles = []
    for cls in ("deep-k",) + tuple(reversed(SIZE_CLASSES)):  # the first wins ties
        entry, _ = lookup(device, m, n, k, itemsize, sources, classes=[cls])
        if (entry is not None and get_variant(entry.entry.variant).block(entry.params)
                and family in (None, entry.entry.variant)):
            tiles.append((entry.entry.variant, entry.params,
                          f"{entry.entry.source} {cls}-class entry", entry.entry.source))
    for impl in REGISTRY.values() if family is None else [get_variant(family)]:
        for name, preset in impl.presets_for(device, itemsize):
            resolved = impl.resolve(preset)
            if impl.block(resolved) and not impl.problems(resolved, device, itemsize):
                tiles.append((impl.name, resolved, f"{impl.name}'s {name} preset", "model"))
    return tiles


def _fitting_tile(device: Device, m: int, n: int, k: int, itemsize: int,
                  sources: Sequence[tuple[str, Path]], context: str,
                  layout: str, found: Found | None = None) -> Choice:
    """The tile that fits C best among the entries of the deep-K class and of the size
    classes and the presets of the families that split K; or, given the entry ``found``,
    among it (first), the entries and the presets of its family. Split along K by the
    model unless the entry says how (a deep-K entry's KSPLIT > 1)."""
    family = found.entry.variant if found is not None else None
    tiles = [] if found is None else [
        (family, found.params, f"{found.entry.source} {found.shape_class}-class entry",
         found.entry.source)]
    tiles += _family_tiles(device, m, n, k, itemsize, sources, family)
    tensor64 = itemsize == 8 and skinny_tiles(device, itemsize)
    if tensor64:
        # float64 on the tensor cores' tiles alone, however much they pad C: on the H100
        # C of 1-64 rows by 10-64 columns (or the other way round) ran 1.2-2.5x faster in
        # mma's 64 x 64 (one tile, split along K) than in xgemm's 16 x 16, the least
        # padded, at twelve shapes of K = 4096 to 2^20 (24 x 30 x 300000 39% -> 99% of
        # cuBLAS; bench/results/2026-11-27-h100-shallow)
        tiles = [tile for tile in tiles if tile[0] == "mma"] or tiles
    if not tiles:
        variant, params, reason = default_choice(device, m, n, k, itemsize, layout)
        return Choice(variant, params, reason, "model")
    variant, params, origin, source = tiles[fitting_tile([t[:2] for t in tiles], m, n,
                                                        inf if tensor64 else MOSTLY_PADDING)]
    rows, cols, _ = get_variant(variant).block(params)
    return _fit_to_shape(device, m, n, k, itemsize, variant, params,
                         f"{context}; {variant} tile {rows}x{cols} from the {origin} (of "
                         f"{len(tiles)}, the least padded work per multiply-add over C)",
                         source)
