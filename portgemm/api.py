"""The public GEMM entry points: ``matmul`` (an array), ``gemm`` (array plus timings) and
``variants`` (what can run where), each asking the backend registry."""

from __future__ import annotations

import time
from typing import Any, Mapping

import numpy as np

from .backends import DEFAULT_BACKEND, Backend, Resolved, get_backend
from .errors import ParameterError
from .memory import copy_into
from .operands import (check_device_memory, check_one_context, check_operands, check_out,
                       check_poison, is_device_array, is_empty_product, layout_of,
                       memory_problem, written_apart)
from .result import GemmResult
from .stacks import is_plain, matmul_stacks

EMPTY_PRODUCT_REASON = "no kernel ran: M, N or K is 0 (C is empty or all zeros, as in numpy)"


def gemm(a, b, *, device: Any = None, variant: str = "auto",
         params: Mapping[str, Any] | None = None, backend: str = DEFAULT_BACKEND,
         poison: float | None = None, out=None) -> GemmResult:
    """C = A @ B for two matrices, returned with the kernel and wall times and what ran
    (:func:`matmul` also takes vectors and stacks, as numpy does).

    backend: "opencl" (default), "host" (serial references and the threaded CPU GEMM;
      ``device`` must be None or "host") or "dpex" (numba-dpex kernels; ``device`` is a
      dpctl filter string, default "opencl:cpu"; needs ``pip install "portgemm[dpex]"``).
    device: for OpenCL, a selector spec (see :func:`portgemm.select_device`).
    variant: a registered name (``portgemm.variants()``) or "auto" (tuning database,
      else a choice from the device's properties). params: that variant's parameters;
      missing ones take defaults. The result's ``source`` says where they came from.
    poison: fill C with this value on the device before the kernel (tests use NaN).
    a, b may be ``pyopencl.array.Array`` operands (backend "opencl"): they are used where
    they are, on their own queue, and C comes back as a new device array there, without a
    round trip through the host. out: an (M, N) array of the operands' dtype (numpy, or
    a C-contiguous device array on the operands' context) that receives C; the result's
    ``c`` is then ``out``. Where it shares memory with A or B (``out=a``), is not
    C-contiguous, or is a device array at an offset into its buffer, C is made apart and
    copied in, as numpy does. Operands in the other byte order are copied into the
    machine's first.
    A dimension of 0 follows numpy: ``(M, 0) @ (0, N)`` gives an M x N zero matrix, M = 0
    or N = 0 an empty one; the variant and parameters are still checked, but no kernel
    runs (``kernel_ms`` is 0).
    Raises ValueError for bad shapes, parameters beyond the device's limits or operands
    larger than its memory (ParameterError naming the limit), TypeError for unsupported
    dtypes, BuildError (with the build log) if compilation fails,
    BackendUnavailableError when a backend's extra is not installed.
    """
    return _gemm(a, b, device=device, variant=variant, params=params, backend=backend,
                 poison=poison, out=out, wait=True)


def _gemm(a, b, *, device, variant, params, backend, out, poison=None,
          wait: bool) -> GemmResult:
    """:func:`gemm`; ``wait=False`` may return a device C before its kernels finish
    (matmul's way: its caller gets no times)."""
    start = time.perf_counter()
    chosen = get_backend(backend)
    _check_params(params)
    a, b = check_operands(a, b)
    check_poison(poison)
    check_one_context(a, b, out)
    target = _device(chosen, device, a, b)
    check_device_memory(target, a, b)
    shape = (a.shape[0], b.shape[1], a.shape[1])
    if out is not None:
        check_out(out, shape[:2], a.dtype)
        if written_apart(out, a, b):  # as numpy does: C made apart, then copied in
            result = _gemm(a, b, device=device, variant=variant, params=params,
                           backend=backend, out=None, poison=poison, wait=wait)
            result.c = copy_into(out, result.c, wait=wait)
            result.wall_ms = (time.perf_counter() - start) * 1e3
            return result
    if is_empty_product(a, b):
        # Resolved on a 1 x 1 x 1 stand-in: "auto"'s shape classes need a size, and the
        # parameters are checked exactly as for any other call.
        resolved = chosen.resolve(target, variant, params, (1, 1, 1), a.dtype)
        return _empty_product(chosen, resolved, shape, a, b, out, start)
    resolved = chosen.resolve(target, variant, params, shape, a.dtype, layout_of(a, b))
    return chosen.run(resolved, a, b, poison=poison, out=out, wait=wait)


def _device(backend: Backend, spec: Any, a, b):
    """The device named by ``spec``, or the one the operands' device arrays live on."""
    resident = backend.resident_device(a, b)
    if resident is None:
        return backend.device(spec)
    if spec is not None and backend.device(spec) != resident:
        raise ParameterError(f"the operands live on {resident.description}, but device="
                             f"{spec!r} names {backend.device(spec).description}")
    return resident


def _empty_product(backend: Backend, resolved: Resolved, shape: tuple[int, int, int],
                   a, b, out, start: float) -> GemmResult:
    """numpy's answer for a product with a dimension of 0, without running a kernel (on
    the device when the operands are there)."""
    m, n, _ = shape
    resident = next((x for x in (a, b) if is_device_array(x)), None)
    if out is not None:
        out.fill(0)
        c = out
    elif resident is not None:
        import pyopencl.array as cl_array

        c = cl_array.zeros(resident.queue, (m, n), a.dtype)
    else:
        c = np.zeros((m, n), dtype=a.dtype)
    wall_ms = (time.perf_counter() - start) * 1e3
    # The backend's own result type (dpex's DpexResult), as its calls that run return
    result_type = getattr(backend, "result_type", GemmResult)
    return result_type(c, resolved.device, resolved.variant, dict(resolved.params), 0.0,
                       wall_ms, backend=backend.name, source=resolved.source,
                       reason=EMPTY_PRODUCT_REASON)


def matmul(a, b, *, device: Any = None, variant: str = "auto",
           params: Mapping[str, Any] | None = None, backend: str = DEFAULT_BACKEND, out=None):
    """C = A @ B by numpy's rules, an array of the inputs' dtype (numpy, or a device array
    when the operands are; ``out`` when given); ``device``, ``variant``, ``params``,
    ``backend`` and ``out`` as :func:`gemm` takes them (``poison`` is gemm's alone).

    Beyond two matrices (which is :func:`gemm`'s whole job) it takes what ``numpy.matmul``
    takes: a 1-D ``a`` is a row and a 1-D ``b`` a column, the axis dropped from the
    result (two vectors give a scalar); more dimensions are stacks of matrices whose
    leading axes broadcast (numpy operands; device arrays, both sides, broadcast only a
    single matrix, and C is one too). A stack times one matrix runs as one product where
    that pays; other stacks in one launch where the backend and variant can, else a
    product a pair of matrices (``portgemm.stacks``).

    With device arrays it returns as soon as the kernels are queued, as pyopencl's own
    operations do: C's queue runs what comes next after them (``C.get()`` waits for
    them), and C's ``events`` hold the last of them for another queue's commands.
    """
    if is_plain(a, b):
        return _gemm(a, b, device=device, variant=variant, params=params, backend=backend,
                     out=out, wait=False).c

    def product(a2, b2, out2):
        return _gemm(a2, b2, device=device, variant=variant, params=params,
                     backend=backend, out=out2, wait=False).c

    chosen = get_backend(backend)
    run_stack = getattr(chosen, "run_stack", None)

    def stack_product(a3, b3, out3):
        """The whole stack in one launch where the backend can, else None."""
        _check_params(params)  # (each product's _gemm checks its own)
        target = _device(chosen, device, a3, b3)
        shape = (a3.shape[1], b3.shape[2], a3.shape[2])
        resolved = chosen.resolve(target, variant, params, shape, a3.dtype)
        result = run_stack(resolved, a3, b3, out=out3, wait=False)
        return None if result is None else result.c

    def memory(buffers, dtype):
        return memory_problem(_device(chosen, device, a, b), buffers, dtype)

    return matmul_stacks(a, b, product, out=out,
                         stack_product=None if run_stack is None else stack_product,
                         memory=memory)


def _check_params(params) -> None:
    """TypeError unless ``params`` is None or a mapping of names to values (a list of
    pairs, or a string, reached the backend as an AttributeError)."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping such as {{'tile_y': 4}} or None, got "
                        f"{type(params).__name__} {params!r}")


def variants(device: Any = None, backend: str = DEFAULT_BACKEND) -> list[str]:
    """Names of the variants usable on a device (all of the backend's if device is None)."""
    chosen = get_backend(backend)
    return chosen.variants(None if device is None else chosen.device(device))
