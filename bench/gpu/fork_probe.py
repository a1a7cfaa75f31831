"""Whether a process forked after portgemm ran on a device can run it there too (as
multiprocessing's default start method on Linux does): the parent computes one product,
then two forked workers compute four, as they are, after forgetting the parent's
queues (``portgemm.clear_caches()``), and through a fresh pyopencl context of their own;
then two spawned ones. Each answer checked against numpy, each pool given 60 s.

    python3 bench/gpu/fork_probe.py [--device gpu] [--ways fork,fork-cleared,fork-raw,spawn]
"""

from __future__ import annotations

import argparse
import multiprocessing

import numpy as np

import portgemm

A = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)


def product(device: str, cleared: bool = False) -> str:
    try:
        if cleared:
            portgemm.clear_caches()
        c = portgemm.matmul(A, A, device=device)
    except Exception as exc:  # noqa: BLE001 (reported, not raised)
        return f"{type(exc).__name__}: {exc}"[:200]
    return "right" if np.allclose(c, A @ A, rtol=1e-4, atol=1e-4) else "WRONG"


def raw_context(device: str) -> str:
    """A context, queue and copy of pyopencl's own, made in the child."""
    try:
        import pyopencl as cl

        handle = portgemm.select_device(device).handle
        context = cl.Context([handle])
        queue = cl.CommandQueue(context)
        buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                           hostbuf=A)
        back = np.empty_like(A)
        cl.enqueue_copy(queue, back, buffer)
        return "right" if np.array_equal(back, A) else "WRONG"
    except Exception as exc:  # noqa: BLE001 (reported, not raised)
        return f"{type(exc).__name__}: {exc}"[:200]


WAYS = {"fork": ("fork", product, ()), "fork-cleared": ("fork", product, (True,)),
        "fork-raw": ("fork", raw_context, ()), "spawn": ("spawn", product, ())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--ways", default=",".join(WAYS))
    args = parser.parse_args()
    print("parent:", product(args.device), flush=True)
    for way in args.ways.split(","):
        method, work, extra = WAYS[way]
        pool = multiprocessing.get_context(method).Pool(2)
        answers = pool.starmap_async(work, [(args.device, *extra)] * 4)
        try:
            print(f"{way}:", answers.get(timeout=60), flush=True)
        except multiprocessing.TimeoutError:
            print(f"{way}: no answer in 60 s", flush=True)
        pool.terminate()


if __name__ == "__main__":
    main()
