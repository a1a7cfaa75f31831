"""Where a small GPU call from numpy goes, beside torch: the whole call, the bare copies
of the same bytes by pyopencl (fresh buffers, host to device and back) and by torch, and
a profile of portgemm's call (functions by own time).
    python3 bench/gpu/call_profile.py [--dtype float32] [--reps 30] [--shapes 64x2x1000@64x1000x50,...]"""

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path

import numpy as np
import pyopencl as cl

import portgemm
from portgemm.runtime import Queue
from portgemm.bench.references import cuda_torch
from transfers import median_ms  # bench/gpu/transfers.py, beside this file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from stacks import SHAPES_HELP, shape_pairs  # noqa: E402  (bench/stacks.py)

CASES = [((256, 32, 64), (256, 64, 32)), ((64, 128, 128), (64, 128, 128)),
         ((128, 128), (64, 128, 128)), ((256, 256), (256, 256)), ((1024, 1024), (1024, 1024))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--shapes", type=shape_pairs, default=CASES, help=SHAPES_HELP)
    args = parser.parse_args()
    cases = args.shapes
    torch = cuda_torch()
    device = portgemm.select_device("gpu")
    queue = Queue(device)
    ctx, q = queue.context, queue.cl_queue
    rng = np.random.default_rng(0)
    for a_shape, b_shape in cases:
        a = rng.standard_normal(a_shape).astype(args.dtype)
        b = rng.standard_normal(b_shape).astype(args.dtype)
        c = np.matmul(a, b)

        def ours():
            portgemm.matmul(a, b, device=device)

        def bare():  # what any pyopencl program pays for the same bytes
            bufs = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, x.nbytes) for x in (a, b, c)]
            cl.enqueue_copy(q, bufs[0], a, is_blocking=False)
            cl.enqueue_copy(q, bufs[1], b, is_blocking=False)
            cl.enqueue_copy(q, np.empty_like(c), bufs[2], is_blocking=True)

        def theirs():
            torch.matmul(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu()

        def theirs_copies():
            torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
            torch.empty(c.shape, device="cuda").cpu()

        times = {name: median_ms(fn, reps=args.reps, warmup=3) for name, fn in
                 (("matmul", ours), ("pyopencl copies", bare), ("torch", theirs),
                  ("torch copies", theirs_copies))}
        print(f"{str(a_shape)} @ {str(b_shape)} {a.dtype}: "
              + ", ".join(f"{k} {v:.3f} ms" for k, v in times.items()), flush=True)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.reps):
            ours()
        profile.disable()
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(14)
        print("\n".join(line for line in text.getvalue().splitlines()[6:] if line.strip()))


if __name__ == "__main__":
    main()
