"""Where a stack's call goes on a GPU: portgemm's one launch (kernel time from its event,
and the whole call) beside torch's batched product (CUDA events on resident tensors,
and the whole call from numpy and back), medians of 10 after 3.
    python3 bench/gpu/stack_parts.py [--dtype float32]"""

import argparse
import statistics

import numpy as np

import portgemm
from portgemm.backends import opencl
from portgemm.bench.references import cuda_torch
from transfers import median_ms as timed_ms  # bench/gpu/transfers.py, beside this file

CASES = [((64, 128, 128), (64, 128, 128)), ((256, 32, 64), (256, 64, 32)),
         ((128, 128), (64, 128, 128)), ((8, 512, 512), (8, 512, 512))]


def median_ms(call):
    return timed_ms(call, reps=10, warmup=3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    torch = cuda_torch()
    device = portgemm.select_device("gpu")
    rng = np.random.default_rng(0)
    for a_shape, b_shape in CASES:
        a = rng.standard_normal(a_shape).astype(args.dtype)
        b = rng.standard_normal(b_shape).astype(args.dtype)
        a3 = a if a.ndim == 3 else a[None]
        shape = (a3.shape[1], b.shape[2], a3.shape[2])
        resolved = opencl.BACKEND.resolve(device, "auto", None, shape, a.dtype)
        kernel = []

        def ours():
            kernel.append(opencl.BACKEND.run_stack(resolved, a3, b).kernel_ms)
        wall = median_ms(ours)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        events = []

        def theirs_resident():
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(ta, tb)
            end.record()
            end.synchronize()
            events.append(start.elapsed_time(end))
        median_ms(theirs_resident)
        torch_wall = median_ms(lambda: torch.matmul(torch.from_numpy(a).cuda(),
                                                    torch.from_numpy(b).cuda()).cpu())
        print(f"{str(a_shape):>14} @ {str(b_shape):>16} {resolved.variant}: portgemm kernel "
              f"{statistics.median(kernel[3:]):.3f} ms, call {wall:.3f}; torch kernel "
              f"{statistics.median(events[3:]):.3f}, call {torch_wall:.3f}")


if __name__ == "__main__":
    main()
