"""A small analytic performance model used by the "model" strategy to rank candidates.

It reads only what every variant exposes -- ``work_group``, ``elements_per_item`` and
``local_mem_bytes`` -- and the device's type and limits, so it works for any registered
variant. Its unit is arbitrary (about one SIMD fused multiply-add): only the order of the
predictions is used. docs/tuning.md explains each term and how well it ranks.

For one shape (M, N, K) and one parameter set, with work-item tile ``ty x tx`` (elements
of C per work-item), work-group ``wy x wx`` and work-group tile ``TY x TX``:

* instructions per element of C per step of K, per SIMD lane:
  ``(ty*tx  FMAs  +  ty  loads of A  +  tx * g  loads of B  +  overhead) / (ty*tx)``.
  Neighbouring work-items along x are neighbouring SIMD lanes (CPU implicit
  vectorization and GPU warps alike). When each item owns ``tx > 1`` adjacent columns
  and reads B from global memory, the lanes' B addresses are ``tx`` apart: a gather on a
  CPU, an uncoalesced access on a GPU; ``g`` is that penalty (1 when ``tx == 1``, when
  the variant stages B in local memory, or when its work-items' columns interleave:
  ``interleaved_columns``). A is the same for all lanes of a row (a broadcast),
  ``overhead`` is the loop and bounds-check work of a K step.
* SIMD fill: lanes a work-group fills out of the SIMD width (along x on a CPU, whose
  compilers vectorize dimension 0; all work-items on a GPU, grouped into warps).
* register fit: private values ``ty*tx + ty + tx`` against a nominal budget of the device
  type; beyond it values spill and the cost grows in proportion.
* occupancy: work-groups over the compute units; the last, partial wave is idle.
* memory: global traffic per element and K step is ``itemsize * (1/TY + 1/TX)``,
  counting reuse over the work-group tile (local memory, or the caches of a CPU core
  that runs the whole group); times the device type's nominal flops-per-byte balance it
  gives a roofline floor under the instruction cost.
* padding: M and N rounded up to the work-group tile are computed in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Any, Mapping

from ..runtime.device import Device
from ..families.base import Variant

# Nominal figures per device type, rough on purpose (they only rank candidates):
# simd: lanes a work-group should fill (16 = AVX-512 floats; a GPU warp is 32);
# lanes_along_x: SIMD lanes run along dimension x only (CPU implicit vectorization);
# registers: private values a work-item holds without spilling; gather: cost of one
# strided B load against a contiguous one; overhead: loop and bounds work per K step;
# balance: flops per byte at which compute and memory time are equal;
# groups_per_unit: work-groups resident on one compute unit at a time.
DEVICE_TRAITS = {
    "gpu": {"simd": 32, "lanes_along_x": False, "registers": 128, "gather": 4.0,
            "overhead": 2.0, "balance": 16.0, "groups_per_unit": 4},
    "cpu": {"simd": 16, "lanes_along_x": True, "registers": 32, "gather": 8.0,
            "overhead": 2.0, "balance": 8.0, "groups_per_unit": 1},
    "accelerator": {"simd": 16, "lanes_along_x": True, "registers": 64, "gather": 4.0,
                    "overhead": 2.0, "balance": 8.0, "groups_per_unit": 1},
}
DEFAULT_TRAITS = DEVICE_TRAITS["accelerator"]


@dataclass(frozen=True)
class Estimate:
    """The model's view of one candidate on one shape."""

    cost: float              # predicted time, arbitrary units (lower is better)
    instructions: float      # per element of C and step of K, per lane
    memory: float            # roofline floor in the same unit
    simd_fill: float         # fraction of SIMD lanes a work-group fills
    register_fit: float      # 1 when the private values fit the budget, less when they spill
    occupancy: float         # fraction of compute-unit slots busy over the waves
    padding: float           # useful elements of C over computed ones


def estimate(variant: Variant, params: Mapping[str, Any], device: Device,
             m: int, n: int, k: int, itemsize: int = 4) -> Estimate:
    """Predict the relative cost of ``params`` for an (m, n, k) GEMM on ``device``."""
    t = DEVICE_TRAITS.get(device.type, DEFAULT_TRAITS)
    ty, tx = variant.elements_per_item(params)
    wy, wx = variant.work_group(params)
    tile_y, tile_x = wy * ty, wx * tx
    groups_y, groups_x = ceil(m / tile_y), ceil(n / tile_x)
    padded = groups_y * tile_y * groups_x * tile_x

    staged = variant.local_mem_bytes(params, itemsize) > 0
    g = 1.0 if tx == 1 or staged or variant.interleaved_columns else t["gather"]
    instructions = (ty * tx + ty + tx * g + t["overhead"]) / (ty * tx)

    lanes = wx if t["lanes_along_x"] else wy * wx
    simd = t["simd"]
    simd_fill = lanes / (ceil(lanes / simd) * simd)
    register_fit = min(1.0, t["registers"] / (ty * tx + ty + tx))
    slots = max(1, device.compute_units) * t["groups_per_unit"]
    groups = groups_y * groups_x
    occupancy = groups / (ceil(groups / slots) * slots)

    # bytes per element and K step, times flops per byte, over 2 flops per FMA
    memory = itemsize * (1.0 / tile_y + 1.0 / tile_x) * t["balance"] / 2.0
    per_element = max(instructions / (simd_fill * register_fit * occupancy), memory)
    return Estimate(cost=per_element * padded * k, instructions=instructions, memory=memory,
                    simd_fill=simd_fill, register_fit=register_fit, occupancy=occupancy,
                    padding=(m * n) / padded)


def predicted_cost(variant: Variant, params: Mapping[str, Any], device: Device,
                   sizes, itemsize: int = 4) -> float:
    """The model's cost summed over several (m, n, k) shapes."""
    return sum(estimate(variant, params, device, m, n, k, itemsize).cost for m, n, k in sizes)
