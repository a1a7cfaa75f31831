"""GemmResult: C and how it was made, whichever backend made it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

# The metadata of a field that belongs to its process (a driver's event): not pickled.
PER_PROCESS = {"per_process": True}

# Where a result's variant and parameters came from (GemmResult.source).
SOURCES = {
    "explicit": "the caller named the variant",
    "user": "the user's tuning database",
    "shipped": "a tuning database shipped with portgemm",
    "model": "chosen from the device's properties (no database entry)",
}


@dataclass
class GemmResult:
    """C and how it was made: the device, the variant and parameters, and its times."""

    c: Any            # numpy.ndarray, or the device array type the operands came in
    device: Any       # the backend's device: a runtime.Device, the host CPU, a SYCL device
    variant: str
    params: dict[str, Any]
    kernel_ms: float  # device time of the GEMM kernel(s), from profiling events; on a
    # caller's queue without profiling, the host's time around the launch (step_ms empty);
    # the host backend's: its call's own time
    wall_ms: float    # host time of the whole call: uploads, kernel, download
    backend: str = "opencl"
    source: str = "explicit"  # one of SOURCES
    reason: str = ""          # why this variant and these parameters (for "auto")
    event: Any = field(default=None, repr=False, metadata=PER_PROCESS)
    step_ms: tuple[float, ...] = ()  # each launch's event time, in the plan's order (OpenCL)

    def __getstate__(self) -> dict:
        """Pickled without its events (fields marked PER_PROCESS: OpenCL's, a subclass's
        SYCL one), which belong to this process (a result returned from a spawned worker
        failed to pickle); its device pickles as the way to select it again
        (runtime.Device)."""
        return {**self.__dict__,
                **{f.name: None for f in fields(self) if f.metadata.get("per_process")}}
