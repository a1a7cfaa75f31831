"""portgemm: portable GEMM kernels on any OpenCL device, SYCL-style.

    import numpy as np, portgemm
    c = portgemm.matmul(a, b)                       # default device, variant "auto"
    c = portgemm.matmul(a, b, device="cpu", variant="tiled", params={"tile_y": 8, "tile_x": 8})
    portgemm.get_devices(); portgemm.select_device("opencl:gpu:0"); portgemm.variants()
"""

from .api import gemm, matmul, variants
from .caches import clear_caches
from .memory import empty_pinned, to_device, to_host
from .errors import (BackendUnavailableError, BuildError, DeviceNotFoundError,
                     ForkedProcessError, ParameterError, PortgemmError)
from .result import GemmResult
from .runtime import Device, Event, NDRange, Queue, Range, get_devices, select_device

__version__ = "0.1.0"
__all__ = ["BackendUnavailableError", "BuildError", "Device", "DeviceNotFoundError", "Event",
           "ForkedProcessError", "GemmResult", "NDRange", "ParameterError", "PortgemmError",
           "Queue", "Range", "clear_caches", "empty_pinned", "gemm", "get_devices", "matmul",
           "select_device", "to_device", "to_host", "variants"]
