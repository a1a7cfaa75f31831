"""parallel_for (coverage, schedules, threads, errors, environment) and gemm_threads."""

import math
import os
import threading
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from portgemm.backends.threads import PARTITIONS, gemm_threads
from portgemm.parallel import (
    default_num_threads,
    parallel_for,
    parse_schedule,
    runtime_schedule,
    schedule_pieces,
)

CONCRETE = ["static", "dynamic", "guided", "auto"]
SIZES = [1, 2, 3, 7, 13, 31, 67, 129]
DTYPES = [np.float32, np.float64]


def flatten(plan, schedule):
    return [piece for pieces in plan for piece in pieces] if schedule in ("static", "auto") else plan


def index_counts(pieces, n):
    counts = np.zeros(n, dtype=int)
    for start, stop in pieces:
        assert 0 <= start < stop <= n
        counts[start:stop] += 1
    return counts


def run_and_record(n, **loop):
    """Run parallel_for with a recording body; return the pieces each thread ran."""
    seen = []  # list.append is atomic, so no lock is needed

    def body(start, stop):
        seen.append((threading.get_ident(), start, stop))

    parallel_for(n, body, **loop)
    return seen


# ------------------------------------------------------------------- planning


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(0, 400),
    schedule=st.sampled_from(CONCRETE),
    chunk=st.none() | st.integers(1, 40),
    threads=st.integers(1, 9),
)
def test_plan_covers_every_index_once(n, schedule, chunk, threads):
    plan = schedule_pieces(n, schedule, chunk, threads)
    assert np.all(index_counts(flatten(plan, schedule), n) == 1)


@given(n=st.integers(0, 400), threads=st.integers(1, 9))
def test_static_blocks_are_contiguous_and_balanced(n, threads):
    plan = schedule_pieces(n, "static", None, threads)
    assert len(plan) == threads
    sizes = [sum(stop - start for start, stop in pieces) for pieces in plan]
    assert max(sizes) - min(sizes) <= 1
    assert all(len(pieces) <= 1 for pieces in plan)
    starts = [pieces[0][0] for pieces in plan if pieces]
    assert starts == sorted(starts)  # thread t's block precedes thread t+1's


@given(n=st.integers(0, 400), chunk=st.integers(1, 40), threads=st.integers(1, 9))
def test_static_chunks_are_dealt_round_robin(n, chunk, threads):
    plan = schedule_pieces(n, "static", chunk, threads)
    for thread, pieces in enumerate(plan):
        for start, stop in pieces:
            assert (start // chunk) % threads == thread
            assert stop - start == min(chunk, n - start)


@given(n=st.integers(1, 400), chunk=st.none() | st.integers(1, 40), threads=st.integers(1, 9))
def test_dynamic_pieces_have_chunk_size(n, chunk, threads):
    sizes = [stop - start for start, stop in schedule_pieces(n, "dynamic", chunk, threads)]
    assert all(size == (chunk or 1) for size in sizes[:-1])
    assert 1 <= sizes[-1] <= (chunk or 1)


@given(n=st.integers(1, 400), chunk=st.none() | st.integers(1, 40), threads=st.integers(1, 9))
def test_guided_pieces_shrink_but_not_below_chunk(n, chunk, threads):
    pieces = schedule_pieces(n, "guided", chunk, threads)
    sizes = [stop - start for start, stop in pieces]
    assert sizes == sorted(sizes, reverse=True)
    assert all(size >= (chunk or 1) for size in sizes[:-1])
    for start, stop in pieces:
        remaining = n - start
        assert stop - start == min(remaining, max(chunk or 1, math.ceil(remaining / threads)))


def test_auto_is_static():
    assert schedule_pieces(10, "auto", None, 3) == schedule_pieces(10, "static", None, 3)


# ------------------------------------------------------------------- execution


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 300),
    schedule=st.sampled_from(CONCRETE),
    chunk=st.none() | st.integers(1, 30),
    threads=st.integers(1, 6),
)
def test_parallel_for_runs_every_index_once(n, schedule, chunk, threads):
    seen = run_and_record(n, schedule=schedule, chunk=chunk, num_threads=threads)
    assert np.all(index_counts([(s, e) for _, s, e in seen], n) == 1)
    assert len({ident for ident, _, _ in seen}) <= threads


@pytest.mark.parametrize("schedule", ["static", "dynamic", "guided"])
def test_parallel_for_runs_the_planned_pieces(schedule):
    seen = run_and_record(100, schedule=schedule, chunk=7, num_threads=3)
    ran = sorted((s, e) for _, s, e in seen)
    assert ran == sorted(flatten(schedule_pieces(100, schedule, 7, 3), schedule))
    if schedule == "static":  # fixed assignment: one thread per planned list
        by_thread = {}
        for ident, s, e in seen:
            by_thread.setdefault(ident, []).append((s, e))
        assert sorted(sorted(p) for p in by_thread.values()) == sorted(
            sorted(p) for p in schedule_pieces(100, "static", 7, 3))


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
@pytest.mark.parametrize("schedule", ["static", "dynamic"])
def test_exactly_num_threads_run_concurrently(threads, schedule):
    # A barrier for `threads` parties only opens if that many bodies run at once,
    # so this proves the team really has num_threads members, not fewer.
    barrier = threading.Barrier(threads, timeout=10)

    def body(start, stop):
        barrier.wait()
        seen.append(threading.get_ident())

    seen = []
    parallel_for(threads, body, schedule=schedule, num_threads=threads)
    assert len(set(seen)) == threads


def test_no_more_than_num_threads_take_part():
    seen = []

    def body(start, stop):
        seen.append(threading.get_ident())
        time.sleep(0.001)  # long enough that idle threads would grab work

    parallel_for(60, body, schedule="dynamic", num_threads=3)
    assert 1 <= len(set(seen)) <= 3
    assert len(seen) == 60


def test_caller_thread_takes_part():
    seen = run_and_record(4, schedule="static", num_threads=4)
    assert threading.get_ident() in {ident for ident, _, _ in seen}


def test_empty_and_single_index_loops():
    assert run_and_record(0, num_threads=4) == []
    assert [(s, e) for _, s, e in run_and_record(1, num_threads=4)] == [(0, 1)]


def test_nested_loop_runs_on_the_calling_thread():
    inner = []

    def body(start, stop):
        outer_thread = threading.get_ident()
        for _ in range(start, stop):
            for ident, s, e in run_and_record(10, schedule="dynamic", num_threads=4):
                inner.append((ident == outer_thread, s, e))

    # Run in a helper thread: a broken nested loop deadlocks, and should fail here.
    outer = threading.Thread(target=parallel_for, args=(4, body), kwargs={"num_threads": 2}, daemon=True)
    outer.start()
    outer.join(timeout=30)
    assert not outer.is_alive(), "nested parallel_for deadlocked"
    assert all(same for same, _, _ in inner)
    assert Counter((s, e) for _, s, e in inner) == Counter({(i, i + 1): 4 for i in range(10)})


class Boom(Exception):
    pass


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("schedule", CONCRETE)
def test_body_exception_reaches_caller(schedule, threads):
    def body(start, stop):
        if start <= 57 < stop:
            raise Boom(f"index 57 in [{start}, {stop})")

    with pytest.raises(Boom, match="index 57"):
        parallel_for(100, body, schedule=schedule, chunk=5, num_threads=threads)


def test_exception_cancels_remaining_pieces_and_waits_for_running_ones():
    running = []
    calls = []

    def body(start, stop):
        running.append(1)
        calls.append(start)
        try:
            if start == 0:
                raise Boom("first piece")
            time.sleep(0.002)
        finally:
            running.pop()

    with pytest.raises(Boom):
        parallel_for(1000, body, schedule="dynamic", num_threads=2)
    assert len(calls) < 100  # most of the 1000 pieces were skipped
    assert running == []  # nothing still runs once the caller sees the error


def test_pool_still_works_after_an_exception():
    with pytest.raises(Boom):
        parallel_for(10, lambda s, e: (_ for _ in ()).throw(Boom()), num_threads=2)
    seen = run_and_record(50, schedule="dynamic", num_threads=2)
    assert np.all(index_counts([(s, e) for _, s, e in seen], 50) == 1)


# -------------------------------------------------------------- bad arguments


@pytest.mark.parametrize("kwargs, message", [
    (dict(schedule="fast"), "static, dynamic, guided, auto, runtime"),
    (dict(chunk=0), "chunk"),
    (dict(chunk=-2), "chunk"),
    (dict(num_threads=0), "num_threads"),
    (dict(num_threads=-1), "num_threads"),
    (dict(schedule="runtime", chunk=2), "PORTGEMM_SCHEDULE"),
])
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        parallel_for(10, lambda s, e: None, **kwargs)
    with pytest.raises(ValueError, match=message):
        schedule_pieces(10, **kwargs)


def test_bad_loop_size_and_body():
    with pytest.raises(ValueError, match="n must be >= 0"):
        parallel_for(-1, lambda s, e: None)
    with pytest.raises(TypeError):
        parallel_for(2.5, lambda s, e: None)
    with pytest.raises(TypeError, match="callable"):
        parallel_for(3, None)


# ---------------------------------------------------------------- environment


@pytest.mark.parametrize("text, expected", [
    ("static", ("static", None)),
    ("dynamic,4", ("dynamic", 4)),
    (" Guided , 2 ", ("guided", 2)),
    ("auto", ("auto", None)),
    ("monotonic:dynamic,3", ("dynamic", 3)),
    ("nonmonotonic:guided", ("guided", None)),
])
def test_parse_schedule(text, expected):
    assert parse_schedule(text) == expected


@pytest.mark.parametrize("text", ["fast", "dynamic,0", "dynamic,x", "dynamic,-1", "sideways:static", "runtime", ""])
def test_parse_schedule_rejects(text):
    with pytest.raises(ValueError):
        parse_schedule(text)


def test_runtime_schedule_reads_environment(monkeypatch):
    monkeypatch.delenv("PORTGEMM_SCHEDULE", raising=False)
    assert runtime_schedule() == ("static", None)
    assert schedule_pieces(10, "runtime", num_threads=2) == schedule_pieces(10, "static", None, 2)

    monkeypatch.setenv("PORTGEMM_SCHEDULE", "dynamic,3")
    assert schedule_pieces(10, "runtime", num_threads=2) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    seen = run_and_record(10, schedule="runtime", num_threads=2)
    assert sorted((s, e) for _, s, e in seen) == [(0, 3), (3, 6), (6, 9), (9, 10)]

    monkeypatch.setenv("PORTGEMM_SCHEDULE", "guided")
    assert schedule_pieces(10, "runtime", num_threads=2) == schedule_pieces(10, "guided", None, 2)

    monkeypatch.setenv("PORTGEMM_SCHEDULE", "dynamic;4")
    with pytest.raises(ValueError, match="PORTGEMM_SCHEDULE"):
        parallel_for(10, lambda s, e: None, schedule="runtime")


def test_num_threads_from_environment(monkeypatch):
    monkeypatch.delenv("PORTGEMM_NUM_THREADS", raising=False)
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert default_num_threads() == expected

    monkeypatch.setenv("PORTGEMM_NUM_THREADS", "3")
    assert default_num_threads() == 3
    assert len(schedule_pieces(10, "static")) == 3
    barrier = threading.Barrier(3, timeout=10)  # the default team must have 3 members
    parallel_for(3, lambda s, e: barrier.wait())

    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv("PORTGEMM_NUM_THREADS", bad)
        with pytest.raises(ValueError, match="PORTGEMM_NUM_THREADS"):
            parallel_for(3, lambda s, e: None)


# ------------------------------------------------------------------------ GEMM


def relative_error(c, a, b):
    """Frobenius error against A @ B in float64, relative to || |A| |B| || (the
    scale dot-product rounding is bounded by, even when the sums cancel)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    scale = np.linalg.norm(np.abs(a64) @ np.abs(b64))
    return np.linalg.norm(c.astype(np.float64) - a64 @ b64) / (scale if scale else 1.0)


def tolerance(dtype, k):
    return 2 * (k + 4) * np.finfo(dtype).eps


def check_gemm(a, b, **kwargs):
    c = gemm_threads(a, b, **kwargs)
    assert c.shape == (a.shape[0], b.shape[1])
    assert c.dtype == a.dtype
    assert c.flags.c_contiguous
    assert relative_error(c, a, b) <= tolerance(a.dtype, a.shape[1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("schedule", CONCRETE)
@pytest.mark.parametrize("partition", PARTITIONS)
@settings(max_examples=8, deadline=None)
@given(
    m=st.sampled_from(SIZES), k=st.sampled_from(SIZES), n=st.sampled_from(SIZES),
    chunk=st.none() | st.integers(1, 3), threads=st.integers(1, 3),
    block=st.sampled_from([1, 4, 16, 64]), seed=st.integers(0, 2**32 - 1),
)
def test_gemm_partition_schedule(partition, schedule, dtype, m, k, n, chunk, threads, block, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    check_gemm(a, b, partition=partition, schedule=schedule, chunk=chunk, num_threads=threads, block=block)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("partition", PARTITIONS)
def test_gemm_spans_several_cache_panels(partition, dtype):
    # K beyond one K panel (256 float32 / 128 float64), N over several column
    # panels with a ragged last one, M not a multiple of the tile's rows.
    rng = np.random.default_rng(4)
    a = rng.standard_normal((71, 1100)).astype(dtype)
    b = rng.standard_normal((1100, 203)).astype(dtype)
    check_gemm(a, b, partition=partition, num_threads=2)


@pytest.mark.parametrize("partition", PARTITIONS)
def test_gemm_default_arguments_and_layouts(partition):
    rng = np.random.default_rng(5)
    a = np.asfortranarray(rng.standard_normal((130, 67)).astype(np.float32))
    b = rng.standard_normal((131, 67)).astype(np.float32).T
    check_gemm(a, b, partition=partition)


@pytest.mark.parametrize("partition", PARTITIONS)
@pytest.mark.parametrize("shape", [(0, 5, 3), (4, 0, 3), (4, 5, 0)])
def test_gemm_empty_dimensions_follow_numpy(partition, shape):
    """As everywhere in portgemm (portgemm.operands): (M, 0) @ (0, N) is an M x N zero
    matrix, M = 0 or N = 0 an empty one."""
    m, k, n = shape
    a, b = np.ones((m, k)), np.ones((k, n))
    c = gemm_threads(a, b, partition=partition, num_threads=2)
    assert c.shape == (m, n) and np.array_equal(c, a @ b)


def test_gemm_bad_arguments():
    a = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="rows, collapse, atomic, numpy"):
        gemm_threads(a, a, partition="tiles")
    with pytest.raises(ValueError, match="block"):
        gemm_threads(a, a, block=0)
    with pytest.raises(ValueError, match="schedule"):
        gemm_threads(a, a, schedule="fast")
    with pytest.raises(ValueError, match="num_threads"):
        gemm_threads(a, a, num_threads=0)
    with pytest.raises(ValueError):
        gemm_threads(a, np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="float32 and float64"):
        gemm_threads(a.astype(np.int32), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("schedule", ["static", "dynamic"])
@pytest.mark.parametrize("partition", ["rows", "collapse", "atomic"])
def test_the_ikj_body_runs_the_plain_loop_without_packing(partition, schedule, dtype,
                                                          monkeypatch):
    """body="ikj" (seed 002's OpenMP loop): the i-k-j loop on A and B as they are, right
    on ragged blocks, with nothing packed."""
    import portgemm.backends.threads as threads

    def no_packing(*args):
        raise AssertionError("body='ikj' packed B")

    monkeypatch.setattr(threads, "_pack_panels", no_packing)
    rng = np.random.default_rng(6)
    a = rng.standard_normal((37, 29)).astype(dtype)
    b = rng.standard_normal((29, 41)).astype(dtype)
    check_gemm(a, b, partition=partition, schedule=schedule, num_threads=3, block=8,
               body="ikj")


def test_body_is_checked_like_the_other_parameters():
    import portgemm

    a = np.ones((4, 4))
    with pytest.raises(ValueError, match="tile, ikj"):
        gemm_threads(a, a, body="fast")
    with pytest.raises(ValueError, match="numpy"):
        gemm_threads(a, a, partition="numpy", body="ikj")
    with pytest.raises(ValueError, match="body"):  # an empty product's too
        portgemm.matmul(np.ones((0, 3)), np.ones((3, 2)), backend="host",
                        variant="threads-collapse", params={"body": "fast"})
    r = portgemm.gemm(a, a, backend="host", variant="threads-collapse",
                      params={"body": "ikj"})
    assert r.params["body"] == "ikj" and np.array_equal(r.c, a @ a)


@pytest.mark.parametrize("m", [0, 2])
@pytest.mark.parametrize("params, says", [
    ({"num_threads": 0}, "num_threads"), ({"schedule": "bogus"}, "schedule"),
    ({"chunk": 0}, "chunk"), ({"block": 0}, "block"),
])
def test_the_host_backend_checks_parameter_values_of_an_empty_product_too(m, params, says):
    """An empty product runs no threads, yet its parameters are checked as a non-empty
    one's are (gemm's promise; the distributed command line checks a rank's setup so)."""
    import portgemm

    with pytest.raises(ValueError, match=says):
        portgemm.matmul(np.ones((m, 3)), np.ones((3, 2)), backend="host", params=params)


@pytest.mark.parametrize("rows", [slice(0, 8), slice(-8, None)])
def test_numpy_partition_keeps_the_callers_errstate_on_every_thread(rows):
    """np.errstate is per thread: the workers' matmuls warned under the caller's "ignore"
    and did not raise under "raise", where numpy's single-threaded matmul does both."""
    import warnings

    a = np.ones((64, 8), np.float32)
    a[rows] = np.finfo(np.float32).max / 2  # overflows in one thread's rows only
    b = np.ones((8, 4), np.float32)
    run = {"partition": "numpy", "num_threads": 2, "block": 8}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test
        with np.errstate(all="ignore"):
            c = gemm_threads(a, b, **run)
    assert np.isinf(c[rows]).all()
    with np.errstate(all="raise"), pytest.raises(FloatingPointError, match="overflow"):
        gemm_threads(a, b, **run)


def test_gemm_tolerance_can_fail():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((13, 67)).astype(np.float32)
    b = rng.standard_normal((67, 31)).astype(np.float32)
    c = gemm_threads(a, b, num_threads=2)
    c[12, 30] += 1e-2 * np.abs(c).max()  # one slightly wrong element is noticed
    assert relative_error(c, a, b) > tolerance(np.float32, 67)


def test_prefer_wide_vectors_reaches_the_compiled_code():
    """The hint the threaded kernels start with is in the LLVM function, and on a CPU
    with AVX-512 the loop is vectorised with 512-bit registers."""
    from numba import njit

    from portgemm.backends.jit import prefer_wide_vectors

    @njit(fastmath=True)
    def dot(x, y):
        prefer_wide_vectors()
        total = np.float32(0)
        for k in range(x.shape[0]):
            total += x[k] * y[k]
        return total

    x = np.arange(1000, dtype=np.float32)
    assert dot(x, x) == pytest.approx(float(x @ x), rel=1e-5)
    signature = dot.signatures[0]
    assert '"prefer-vector-width"="512"' in dot.inspect_llvm(signature)
    cpuinfo = "/proc/cpuinfo"
    if os.path.exists(cpuinfo) and " avx512f " in open(cpuinfo).read().replace("\n", " "):
        assert "zmm" in dot.inspect_asm(signature)


def test_packing_buffer_is_reused_up_to_its_limit(monkeypatch):
    from portgemm.backends import threads

    monkeypatch.setattr(threads, "KEPT_PACKING_BYTES", 4096)
    monkeypatch.setattr(threads, "_scratch", threading.local())
    first = threads._packing_buffer(512, np.dtype(np.float32))    # 2048 bytes: kept
    again = threads._packing_buffer(64, np.dtype(np.float64))     # 512: the same memory
    assert np.shares_memory(first, again) and again.shape == (64,)
    assert first.ctypes.data % 64 == 0 and again.ctypes.data % 64 == 0
    big = threads._packing_buffer(4096, np.dtype(np.float32))     # 16 KiB: fresh
    assert not np.shares_memory(big, first) and big.ctypes.data % 64 == 0
    assert threads._scratch.buffer.nbytes == 2048 + 64
    # and products through it stay right after a smaller and a larger call
    rng = np.random.default_rng(3)
    for n in (40, 9, 70):
        a, b = rng.random((n, n + 1), np.float32), rng.random((n + 1, n - 2), np.float32)
        assert np.allclose(gemm_threads(a, b, num_threads=2), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("steps", [0, 1, 7, 300])
@pytest.mark.parametrize("shape", ["host", (6, 2), (3, 1)])
def test_register_tile_adds_its_product_into_c(dtype, steps, shape):
    """The micro-kernel alone, in the host's shape and in those of other CPUs (AVX2's
    6 x 2): C's tile at an offset, rows ld apart, += A panel x B panel; values around the
    tile untouched."""
    from numba import njit

    from portgemm.backends import microkernel

    MR, NV = (microkernel.MR, microkernel.NV) if shape == "host" else shape
    tile_update = microkernel.tile_kernel(MR, NV)
    lanes = microkernel.lanes

    @njit
    def update(ap, bp, c, c0, ld):
        tile_update(ap, 3, bp, 5, steps, c, c0, ld)

    nr = NV * lanes(np.dtype(dtype).itemsize)
    rng = np.random.default_rng(steps)
    ap = rng.standard_normal(3 + steps * MR + 2).astype(dtype)
    bp = rng.standard_normal(5 + steps * nr + 2).astype(dtype)
    ld = nr + 9
    c = rng.standard_normal((MR + 2) * ld).astype(dtype)
    c0 = ld + 4
    expected = c.astype(np.float64).copy()
    a_panel = ap[3:3 + steps * MR].reshape(steps, MR).astype(np.float64)
    b_panel = bp[5:5 + steps * nr].reshape(steps, nr).astype(np.float64)
    for i in range(MR):
        expected[c0 + i * ld:c0 + i * ld + nr] += a_panel[:, i] @ b_panel
    update(ap, bp, c, c0, ld)
    scale = 1 + (np.abs(a_panel).T @ np.abs(b_panel)).max(initial=0)
    assert np.abs(c - expected).max() <= tolerance(dtype, steps) * scale
    outside = np.ones(c.size, bool)
    for i in range(MR):
        outside[c0 + i * ld:c0 + i * ld + nr] = False
    assert np.array_equal(c[outside], expected[outside].astype(dtype))


@pytest.mark.parametrize("partition", ["rows", "collapse"])
def test_gemm_rows_beyond_one_packed_block_of_a(partition):
    """More rows in one piece than the packed block of A holds (MC), and a last block
    of a few rows."""
    from portgemm.backends import threads

    rng = np.random.default_rng(8)
    a = rng.standard_normal((threads.MC + 5, 20)).astype(np.float32)
    b = rng.standard_normal((20, 50)).astype(np.float32)
    check_gemm(a, b, partition=partition, num_threads=1, block=threads.MC + 5)


@pytest.mark.parametrize("schedule, chunk", [("dynamic", 1), ("guided", 3), ("static", 2)])
def test_pieces_are_made_as_they_are_taken(schedule, chunk):
    """A loop's pieces come one at a time, not as a list made first: 10^7 dynamic
    pieces took 11 s and 1.4 GB before the first body ran. A loop of 10^15 indices
    whose body fails at once returns at once."""
    from portgemm import parallel

    plan = parallel._lazy_plan(10**15, schedule, chunk, 4)
    first = next(iter(plan[0] if schedule == "static" else plan))
    assert first == (0, chunk if schedule != "guided" else 10**15 // 4)

    def fails(start, stop):
        raise ValueError("the first piece fails")

    with pytest.raises(ValueError, match="first piece"):
        parallel.parallel_for(10**15, fails, schedule=schedule, chunk=chunk, num_threads=2)
