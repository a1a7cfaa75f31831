"""Latency and bandwidth of a device, measured once by small kernels and kept on disk.

What a cost model needs and no OpenCL query answers (:mod:`portgemm.auto.phvm` reads the
latencies as the paper's sigma_g, sigma_s, sigma_add, sigma_mul; the tall-skinny
bandwidth model reads the bandwidth):

* ``global_ns``: one load from global memory, by a single work-item chasing a random
  cycle of cache lines spread over a region larger than the caches we can name;
* ``local_ns``: one load from local memory, chasing a cycle inside a ``__local`` array;
* ``add_ns``, ``mul_ns``: one floating-point add / multiply in a dependent chain
  (IEEE rules forbid folding the chain; no fast-math option is given);
* ``read_gbs``: the rate at which all work-items together stream a large buffer in;
* ``run_steps`` and ``group_size`` (a CPU only; 0 elsewhere): the run of K a work-item
  takes and the work-group size at which the paper's kernel ran fastest, timed at a
  small tall-skinny shape over a grid of both (:func:`walk_times`).
  A CPU has no count of resident threads; these set the model's grid there instead.
  Version 3 timed a plain grid-stride walk of two streams at one group size; that walk
  found 16 steps on the Xeons of models 167 and 207, but 128 on a Zen 5, where the
  paper's kernel at the model's largest group then ran 1.9x the fastest
  (``bench/results/2026-11-27-cpu-zen5-phvm``).

Each latency is the difference of two runs (S and 2S steps) over S, so the launch cost
cancels. Times are in nanoseconds; ``cycles()`` converts with the device's clock when
it reports one. Results go to ``platformdirs.user_cache_dir("portgemm")/probes.json``
keyed by vendor, device name, driver version and ``PROBE_VERSION``: a device an older probe
measured (before its kernels were corrected) is measured again, as is any device with
``probe(device, fresh=True)``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..files import user_cache_folder, write_atomically
from .device import Device
from .ndrange import NDRange
from .queue import Queue

CHASE_REGION_BYTES = 256 * 2**20   # wider than any cache portgemm knows of but the largest L3s
LINE = 64                          # bytes between two visited addresses (one cache line)
CHASE_STEPS = 4096
ALU_STEPS = 1 << 16
STREAM_BYTES = 256 * 2**20
# raised whenever a change to the kernels below changes what they measure. 2: each chase
# starts at another random line (version 1's runs found the last run's lines in cache, and
# a Zen 5's global latency came out at 2-96 ns instead of about 230). 3: run_steps.
# 4: run_steps and group_size from the paper's kernel itself. 5: the walk's runs in
# steps of a square root of 2
PROBE_VERSION = 5

_KERNELS = r"""
__kernel void chase_global(__global const int *next, const int start, const int steps,
                           __global int *out)
{
    int i = start;
    for (int s = 0; s < steps; ++s)
        i = next[i];
    out[0] = i;
}

__kernel void chase_local(__global const int *init, const int count, const int steps,
                          __global int *out)
{
    __local int next[1024];
    for (int j = 0; j < count; ++j)
        next[j] = init[j];
    int i = 0;
    for (int s = 0; s < steps; ++s)
        i = next[i];
    out[0] = i;
}

/* The operand comes through a volatile local variable: loaded anew each step (off the
 * chain's critical path), it keeps a compiler that reassociates (some CPU runtimes do by
 * default) from summing the steps first. */
#define CHAIN(name, op)                                                               \
__kernel void name(const float step, const int steps, __global float *out)             \
{                                                                                      \
    volatile __local float operand[1];                                                 \
    operand[0] = step;                                                                 \
    float x = out[0];                                                                  \
    for (int s = 0; s < steps; ++s)                                                    \
        x = x op operand[0];                                                           \
    out[0] = x;                                                                        \
}
CHAIN(chain_add, +)
CHAIN(chain_mul, *)

__kernel void stream_read(__global const float4 *x, const int count, __global float *out)
{
    float4 acc = (float4)(0.0f);
    for (int i = get_global_id(0); i < count; i += get_global_size(0))
        acc += x[i];
    out[get_global_id(0)] = acc.x + acc.y + acc.z + acc.w;
}
"""


@dataclass(frozen=True)
class Probe:
    """What one device measured (nanoseconds, GB/s), and its clock for cycle counts."""

    global_ns: float
    local_ns: float
    add_ns: float
    mul_ns: float
    read_gbs: float
    clock_mhz: float = 0.0
    run_steps: int = 0
    group_size: int = 0

    def cycles(self, ns: float) -> float:
        """``ns`` in clock cycles, or ``ns`` itself when the clock is unknown."""
        return ns * self.clock_mhz / 1e3 if self.clock_mhz else ns


def device_key(device: Device) -> str:
    return " / ".join(" ".join(str(p).split()) for p in
                      (device.vendor, device.name, device.driver_version))


def probe_file() -> Path:
    return user_cache_folder() / "probes.json"


def cached_probe(device: Device) -> Probe | None:
    """The device's probe from the file, or None when this probe never measured it
    (nothing is run: for callers on a hot path)."""
    return _entry(_read(probe_file()).get(probe_key(device)))


def probe(device: Device, *, fresh: bool = False) -> Probe:
    """The device's measured latencies and bandwidth, from the file unless ``fresh``."""
    path, key = probe_file(), probe_key(device)
    known = _read(path)
    kept = None if fresh else _entry(known.get(key))
    if kept is not None:
        return kept
    found = measure(device)
    known[key] = asdict(found)
    _write(path, known)
    return found


def probe_key(device: Device) -> str:
    """The device and the version of the probe: another version's entries (an older
    probe's, or a newer portgemm's sharing the file) are left alone."""
    return f"{device_key(device)} / probe {PROBE_VERSION}"


def _entry(entry) -> Probe | None:
    try:
        return Probe(**entry) if isinstance(entry, dict) else None
    except TypeError:  # fields of another layout
        return None


def measure(device: Device) -> Probe:
    """Run the probe kernels on ``device`` now."""
    queue = Queue(device)

    def kernel(name):
        return queue.kernel(_KERNELS, name)

    out = queue.to_device(np.zeros(1 << 16, np.float32))
    one = NDRange(1, 1)
    i32, f32 = np.int32, np.float32

    def per_step(run, steps: int) -> float:
        """ns per step: the time of 2S steps minus that of S, over S (median of 3)."""
        samples = []
        for _ in range(3):
            short, long = run(steps), run(2 * steps)
            samples.append((long - short) * 1e6 / steps)
        return max(float(np.median(samples)), 1e-3)

    lines = min(CHASE_REGION_BYTES, device.max_mem_alloc_size // 2) // LINE
    stride = LINE // 4
    order = np.random.default_rng(0).permutation(lines)
    chain = np.zeros(lines * stride, np.int32)
    chain[order * stride] = np.roll(order, -1) * stride  # one cycle through every line
    chain_buffer = queue.to_device(chain)
    chase = kernel("chase_global")
    # each run starts at another random line of the cycle: a run that retraced the last
    # one's lines would find them in cache (on a CPU the 4096 lines of one run fit its L2)
    starts = iter(np.random.default_rng(2).integers(0, lines, 64) * stride)
    global_ns = per_step(lambda s: queue.submit(chase, one, chain_buffer, i32(next(starts)),
                                                i32(s), out).kernel_ms, CHASE_STEPS)

    count = 1024
    ring = np.roll(np.random.default_rng(1).permutation(count), 1).astype(np.int32)
    local_chain = np.zeros(count, np.int32)
    local_chain[ring] = np.roll(ring, -1)
    local_buffer = queue.to_device(local_chain)
    chase_local = kernel("chase_local")
    local_ns = per_step(lambda s: queue.submit(chase_local, one, local_buffer, i32(count),
                                               i32(s), out).kernel_ms, ALU_STEPS)

    add, mul = kernel("chain_add"), kernel("chain_mul")
    add_ns = per_step(lambda s: queue.submit(add, one, f32(1e-7), i32(s), out).kernel_ms,
                      ALU_STEPS)
    mul_ns = per_step(lambda s: queue.submit(mul, one, f32(1.0000001), i32(s), out)
                      .kernel_ms, ALU_STEPS)

    read_gbs = _read_bandwidth(queue, kernel("stream_read"))
    run_steps, group_size = fastest_walk(walk_times(device)) if device.type == "cpu" else (0, 0)
    return Probe(global_ns, local_ns, add_ns, mul_ns, read_gbs, float(device.max_clock_mhz),
                 run_steps, group_size)


# --- a CPU's run and group size: the paper's kernel itself ------------------------------

WALK_SHAPE = (3, 3, 4_000_000)  # tall-skinny, its operands past the caches; no size judged
# steps of K a work-item, in steps of a square root of 2: on a Zen 5 the fastest run lay
# between two doublings (362 steps), 1.10x faster than the 256 a doubling's grid gave
# (bench/results/2026-11-27-cpu-zen5-phvm-runs)
WALK_RUNS = (8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512)
WALK_ROUNDS = 3
WALK_SLACK = 1.05  # points this near the fastest count as tied (the rounds' spread here)


def run_grid(k: int, run: int, bs: int, least: int, odd: bool) -> int:
    """GS that gives each of GS x BS work-items a run of at most ``run`` steps of K, at
    least ``least`` groups (a group a compute unit), made odd where ``odd`` (the phvm
    model's grid on a CPU, :mod:`portgemm.auto.phvm`)."""
    return made_odd(max(least, -(-k // (run * bs))), odd)


def made_odd(gs: int, odd: bool) -> int:
    return gs + 1 if odd and gs % 2 == 0 else gs


def walk_points(device: Device) -> list[tuple[int, int, int]]:
    """(run, GS, BS) the walk times: every run of WALK_RUNS at every group size from the
    SIMD width, doubling, to the group limit (the sweep's sizes), GS odd as on a CPU."""
    groups, size = [], max(1, device.native_vector_width)
    while size <= min(device.max_work_group_size, 1024):
        groups.append(size)
        size *= 2
    k = WALK_SHAPE[2]
    return [(run, run_grid(k, run, bs, device.compute_units, True), bs)
            for run in WALK_RUNS for bs in groups]


def walk_times(device: Device, points=None, rounds: int = WALK_ROUNDS) -> dict:
    """{(run, BS): ms} of the paper's Algorithm 1 as written (kernels_cl/phvm.cl, one
    launch an element of C) at WALK_SHAPE, float32, row-major numpy operands passed as
    ``matmul`` passes them (on a CPU runtime, read in place: where they start in a cache
    line changes the times): the points take turns ``rounds`` times (a slow spell of a
    shared host falls on all), each point's time the median of its rounds."""
    from ..backends.transfers import Transfer, policy_for
    from ..families import get_variant
    from ..families.launch import launch_plan

    queue, phvm = Queue(device), get_variant("phvm")
    transfer = Transfer(queue, policy_for(device))
    m, n, k = WALK_SHAPE
    rng = np.random.default_rng(0)
    host = (rng.uniform(-1, 1, (m, k)).astype(np.float32),
            rng.uniform(-1, 1, (k, n)).astype(np.float32))
    i32 = np.int32
    values = dict(zip("AB", (transfer.input(operand) for operand in host)),
                  C=queue.to_device(np.zeros(m * n, np.float32)),  # the sums are not looked at
                  M=i32(m), N=i32(n), K=i32(k), lda=i32(k), ldb=i32(n), ldc=i32(n))
    points = walk_points(device) if points is None else points

    def launches(gs: int, bs: int) -> float:
        """Kernel time of the plan's launches, one an element of C."""
        params = phvm.resolve({"GS": gs, "BS": bs, "ELEMENT_LAUNCHES": 1})
        plan, sources, options = launch_plan(phvm, tuple(params.items()), m, n, k,
                                             np.dtype(np.float32), False, False)
        events = [queue.submit(queue.kernel(source, step.kernel, option), step.ndrange,
                               *(values[x] if isinstance(x, str) else i32(x) for x in step.args))
                  for step, source, option in zip(plan.steps, sources, options)]
        return sum(event.kernel_ms for event in events)

    samples = {(run, bs): [] for run, _, bs in points}
    for turn in range(rounds):
        for run, gs, bs in points:
            if turn == 0:
                launches(gs, bs)  # builds, and warms the caches
            samples[run, bs].append(launches(gs, bs))
    return {point: float(np.median(times)) for point, times in samples.items()}


def fastest_walk(times: dict) -> tuple[int, int]:
    """(run, BS) from :func:`walk_times`: of the points within WALK_SLACK of the fastest,
    the longest run (the same loads by fewer work-items, each group paying its tree and
    atomic add once an element of C), and at that run the fastest group. Taking the
    largest group there instead picked groups of 32 where 16 ran 1.05-1.46x faster at
    5 x 5 x 3e6 on a Zen 5 (bench/results/2026-11-27-cpu-zen5-phvm-runs)."""
    fastest = min(times.values())
    run = max(r for (r, _), ms in times.items() if ms <= WALK_SLACK * fastest)
    return min((point for point in times if point[0] == run), key=times.get)


def _read_bandwidth(queue: Queue, stream) -> float:
    """GB/s of the best of a few launch shapes (groups per compute unit, group size)."""
    device = queue.device
    nbytes = min(STREAM_BYTES, device.max_mem_alloc_size // 2)
    data = queue.empty(nbytes)
    queue.fill(data, np.float32(1), nbytes).wait()
    best = 0.0
    for group in sorted({min(device.max_work_group_size, g) for g in (16, 64, 256)}):
        for per_unit in (1, 8, 64):
            items = device.compute_units * per_unit * group
            sums = queue.empty(items * 4)
            times = [queue.submit(stream, NDRange(items, group), data, np.int32(nbytes // 16),
                                  sums).kernel_ms for _ in range(3)]
            best = max(best, nbytes / (min(times) * 1e6))
    return best


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _write(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(data, indent=1))
    except OSError:  # no writable cache: measured again next time
        pass
