"""How a stack of matrices lies for one launch over it (kernels_cl/common.h: STACKED):
each matrix row-major, starting a whole number of ``pitch`` values after the first, with
the pitch a multiple of an alignment (the backend's: the device's base alignment for
device memory, so that every matrix is as aligned as a buffer of its own would be, as
the families' vector loads and copies assume). Pure numpy: which memory, not which
device."""

from __future__ import annotations

import numpy as np


def pitch_for(rows: int, cols: int, align_bytes: int, itemsize: int) -> int:
    """Values from one matrix's start to the next's: rows x cols rounded up to the
    alignment."""
    align = max(1, align_bytes // itemsize)
    return -(-(rows * cols) // align) * align


def packed(stack: np.ndarray, pitch: int) -> np.ndarray:
    """The matrices of a (count, rows, cols) stack as one flat array, ``pitch`` values
    apart, row-major: the stack itself (a view) where it lies so already, else a copy."""
    count, rows, cols = stack.shape
    if pitch == rows * cols and stack.flags.c_contiguous:
        return stack.reshape(-1)
    flat = np.empty(count * pitch, stack.dtype)
    matrices(flat, count, rows, cols, pitch)[...] = stack
    return flat


def matrices(flat: np.ndarray, count: int, rows: int, cols: int, pitch: int) -> np.ndarray:
    """The (count, rows, cols) view of a flat array that holds them ``pitch`` apart."""
    return flat[:count * pitch].reshape(count, pitch)[:, :rows * cols].reshape(count, rows,
                                                                               cols)
