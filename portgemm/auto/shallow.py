"""A GPU's shallow K: ``vec`` in tiles one 16-byte vector wide.

With a few steps of K a product is the writing of C. The shallow-k class's entries on
Hopper are tensor-core tiles (wgmma's 128 x 128 in float32, mma's 64 x 128 in float64),
which stage a few steps of A and B in local memory for every tile and store C value by
value where its rows are not aligned to pairs. ``vec`` keeps a few rows of one vector of
C in registers, reads its steps of A and B straight from memory (the caches serve the
neighbours' re-reads) and writes each row's vector at once, with no local memory and no
barrier.

On the H100, in turns with the entries' tiles (bench/results/2026-11-27-h100-shallow):
- float32, tiles of 4 rows x 4: 1.26-3.26x faster at K = 1-4 (9314 x 1025 x 3: 53% ->
  173% of cuBLAS, 600 x 601 x 1 2.2x); 8 rows x 4 at K = 5-7 1.15-2.11x (2838 x 8932 x 7
  1.54x), level at K = 8 and 0.85-0.92x at K = 10-12, where the tensor cores keep it;
- float64, 4 rows x 2: 2.2-2.65x where C's rows are not 16-byte aligned (1025 or 4097
  columns), 0.97-1.05x where they are; at K = 7-8 0.82-0.87x.
Only the H100 was timed; any GPU takes the rule.
"""

from __future__ import annotations

VECTOR_BYTES = 16
MOST_K = {4: 7, 8: 6}          # the deepest K that goes to vec, by itemsize
ROWS = {4: ((4, 4), (7, 8)), 8: ((6, 4),)}  # (K at most, rows of a tile), by itemsize
GROUP = (2, 64)                # work-items a group down M and along N (vectors of C's rows)


def gpu_shallow_params(k: int, itemsize: int) -> tuple[dict, str] | None:
    """(vec's parameters, why) for a GPU's shallow-k shape of depth ``k``, or None where
    K is deeper than MOST_K (the class's entries then stand)."""
    if k > MOST_K.get(itemsize, 0):
        return None
    rows = next(rows for most, rows in ROWS[itemsize] if k <= most)
    width = VECTOR_BYTES // itemsize
    params = {"tile_y": rows, "tile_x": width, "vw": width, "wg_y": GROUP[0],
              "wg_x": GROUP[1], "PACKED": 0, "KSPLIT": 1}
    return params, (f"K = {k} <= {MOST_K[itemsize]} on a GPU: vec, tiles of {rows} rows x "
                    f"one vector of {width} (C written {VECTOR_BYTES} bytes at a time), "
                    f"groups of {GROUP[0]} x {GROUP[1]}")
