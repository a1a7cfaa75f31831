"""The wide kernel's parameters from the device's properties.

The kernel reads each row of B once per block of rows of C, so it takes blocks of all of
C's rows (up to MAX_ROWS a work-item), and splits K into layers (KSPLIT) until the device
is busy:

* on a GPU, two columns a work-item and eight steps' loads at once (fewer in float64,
  within float32's registers: GPU_REGISTERS), and layers enough
  for half the work-items the device holds (FILL); each layer adds a partial product of
  C to write and read back, so no more. From a grid of tile_x x KU x KSPLIT x BS on the
  H200; within 0-6% of a sweep around it on eleven of seventeen skinny shapes there.
  The bytes in flight that Little's law asks for (the tallskinny model's 1 us) gave
  2-8x fewer work-items and ran 1.1-2.5x slower (bench/results/2026-11-22-skinny);
* on a CPU (where a user names wide: auto takes tallskinny's rows as vectors for a wide
  C there, 2.1-6.9x faster on the Zen 5, bench/results/2026-11-23-cpu-zen5), one SIMD
  vector per work-group (a CPU runtime runs a group's vectors one
  after another) of CPU_ACCUMULATORS values a work-item, four rows of B streamed side by
  side (BY_COLUMN; 1 x 8192 x 8192 on Intel's runtime: 13.5 ms, 19 ms one row at a
  time), and layers of CPU_RUN steps of K: shorter runs of more layers kept both cores busier than
  a few long ones (1 x 4096 x 4096: 3.6 ms in 8 layers, 9.4 ms in one).

Either way no work-item sums more than MAX_TERMS products in sequence (float32's error
grows with a sequential sum's length), nor a layer fewer than MIN_TERMS steps of K.
"""

from __future__ import annotations

from math import ceil, log2

from ..runtime.device import Device
from .tallskinny import MAX_TERMS, MIN_TERMS, item_registers
from .traits import traits

MAX_ROWS = {"cpu": 8, "gpu": 16}  # rows of C a work-item keeps (more: B is read again)
GPU_GROUP = 256
GPU_COLUMNS = 2         # values of B a GPU work-item loads a step ...
GPU_STEPS = 8           # ... for this many steps at once, fewer where a work-item's values
# would take more registers than float32's at 16 rows (a double takes two): 16 x 4096 x 4096
# in float64 ran 1.6x faster with 2 steps than with 8 on the H100, 8 rows as fast with 4
# (bench/results/2026-11-26-h100-float64-shapes)
GPU_REGISTERS = item_registers((MAX_ROWS["gpu"], GPU_COLUMNS), GPU_STEPS)
# ... and at most GPU_FEW_STEPS for a work-item of FEW_STEPS_ROWS rows, whose 8-step
# build ptxas (NVIDIA's driver 580) makes poorly: at 8 rows 52 registers, fewer than 4
# steps take, so the steps' loads are not all in flight; at 11 rows 66, a group fewer an
# SM than 64. On the H100 float32 C of 8 and 11 rows and 1024-8192 columns ran 1.10-1.67x
# faster in 4 steps at twelve shapes of K = 4096 and 16384 (11 x 4096 x 16384: 62% -> 102%
# of cuBLAS), where 6, 7, 9 and 10 rows (63-64 registers in 8 steps) ran 0.86-1.01x
# (bench/results/2026-11-27-h100-spread). Only where the compiler takes PTX; from 12 rows
# Hopper takes mma's tiles.
FEW_STEPS_ROWS = (8, 11)
GPU_FEW_STEPS = 4
FILL = 0.5              # of the work-items a GPU holds at once
CPU_ACCUMULATORS = 128  # 8 x 16 ran 2x faster than 8 x 8 on Intel's runtime (8 x 4096 x 4096)
CPU_COLUMNS = 64        # at most, for C of one or two rows
CPU_STEPS = 4           # rows of B a CPU work-item reads side by side
CPU_RUN = 512           # steps of K a layer takes on a CPU
# layers at most: C of one block of columns (up to BS x 2) over a deep K took 512 where
# FILL asked, 1.09-1.28x faster than 256 at seven C of 1-3 rows and 257-500 columns on the
# H100 (1 x 257 x 751400: 89% -> 115% of cuBLAS); wider C ask for fewer (1 x 8192 x 8192,
# 32, ran 1.26x slower in 512: bench/results/2026-11-27-h100-spread)
MAX_SPLIT = 512


def wide_params(device: Device, m: int, n: int, k: int, itemsize: int = 4,
                layout: str = "CC") -> tuple[dict, str]:
    """(parameters, why) for the wide kernel on this device and shape; the layout is not
    weighed (the model was fitted on row-major operands)."""
    known = traits(device)
    cpu = device.type == "cpu"
    rows = min(m, MAX_ROWS["cpu" if cpu else "gpu"])
    accurate = ceil(k / MAX_TERMS)
    if cpu:
        size = 1 << max(0, known.simd - 1).bit_length()
        cols, steps = min(CPU_COLUMNS, CPU_ACCUMULATORS // rows), CPU_STEPS
        split = ceil(k / CPU_RUN)
        fill = f"runs of {CPU_RUN} steps of K"
    else:
        size, cols = GPU_GROUP, GPU_COLUMNS
        steps = max(s for s in (GPU_STEPS, 4, 2, 1)
                    if s == 1 or item_registers((rows, cols), s, itemsize) <= GPU_REGISTERS)
        if device.takes_ptx and rows in FEW_STEPS_ROWS:  # ptxas's builds
            steps = min(steps, GPU_FEW_STEPS)
        items = FILL * known.slots
        blocks = ceil(m / rows) * ceil(n / (size * cols))
        split = 1 << max(0, round(log2(max(1.0, items / (blocks * size)))))
        fill = (f"{blocks} blocks of C in layers of {blocks * size} work-items, for "
                f"{FILL:g} of the {known.slots} the device holds")
    split = max(1, min(max(split, accurate), MAX_SPLIT, k // MIN_TERMS))
    params = {"BS": size, "tile_y": rows, "tile_x": cols, "KU": steps,
              "BY_COLUMN": int(cpu), "KSPLIT": split}
    why = (f"{'CPU' if cpu else 'GPU'} rules: BS={size} along N, {rows} x {cols} of C a "
           f"work-item, {steps} steps' loads at once, KSPLIT={split} ({fill}; each "
           f"work-item sums at most {MAX_TERMS} terms)")
    return params, why
