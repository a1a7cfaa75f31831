"""``portgemm.matmul`` takes what ``numpy.matmul`` takes: vectors and stacks of matrices."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import portgemm
from portgemm.stacks import matmul_stacks
from portgemm.verify import reference, relative_error, tolerance

# (a's shape, b's shape): vectors, a stack on either side or both, stacks that broadcast,
# size-1 and empty stacks, primes and a deep K
CASES = [
    ((37,), (37, 11)),
    ((29, 37), (37,)),
    ((101,), (101,)),
    ((4, 13, 37), (37, 11)),
    ((13, 37), (5, 37, 11)),
    ((2, 3, 7, 19), (3, 19, 5)),
    ((2, 1, 7, 19), (3, 19, 5)),
    ((1, 7, 19), (3, 19, 5)),
    ((3, 7, 19), (1, 1, 19, 5)),
    ((3, 7, 1031), (1031,)),
    ((1031,), (3, 1031, 6)),
    ((0, 7, 19), (19, 5)),
    ((7, 19), (0, 19, 5)),
    ((2, 7, 0), (2, 0, 5)),
    ((1, 1), (3, 1, 1)),
]


def operand(shape, dtype, rng):
    return rng.standard_normal(shape).astype(dtype)


def check(c, a, b):
    """C against float64 numpy: shape, dtype, every element written and close."""
    ref = reference(a, b)
    assert np.shape(c) == ref.shape and np.asarray(c).dtype == a.dtype
    if ref.ndim == 0:
        assert np.isscalar(c), "two vectors give a scalar, as in numpy"
    assert relative_error(np.asarray(c), ref) <= tolerance(a.dtype, a.shape[-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", CASES, ids=lambda s: f"{s[0]}@{s[1]}")
def test_numpy_rules(device, shapes, dtype):
    rng = np.random.default_rng([len(shapes[0]), *shapes[0], *shapes[1]])
    a, b = operand(shapes[0], dtype, rng), operand(shapes[1], dtype, rng)
    check(portgemm.matmul(a, b, device=device), a, b)


@pytest.mark.parametrize("shapes", [((4, 13, 37), (37, 11)), ((13, 37), (5, 37, 11)),
                                    ((2, 3, 7, 19), (3, 19, 5)), ((3, 7, 19), (19,)),
                                    ((19,), (19, 6))])
def test_out_poisoned_is_filled_and_returned(device, shapes):
    rng = np.random.default_rng(7)
    a, b = operand(shapes[0], np.float32, rng), operand(shapes[1], np.float32, rng)
    out = np.full(np.matmul(a, b).shape, np.nan, np.float32)
    assert portgemm.matmul(a, b, device=device, out=out) is out
    check(out, a, b)


def test_strided_and_transposed_stacks(any_device):
    rng = np.random.default_rng(3)
    a = operand((6, 40, 30), np.float32, rng)
    b = operand((30, 12), np.float32, rng)
    for view in (a[::2], a.transpose(0, 2, 1)[:, :, ::2], a[:, ::3]):
        right = b if view.shape[-1] == 30 else operand((view.shape[-1], 12), np.float32, rng)
        check(portgemm.matmul(view, right, device=any_device), view, right)
    c = operand((3, 30, 12), np.float32, rng)
    check(portgemm.matmul(a[:3], c[:, :, ::-1], device=any_device), a[:3], c[:, :, ::-1])


def test_a_stack_past_the_index_limit_as_one_matrix(device, monkeypatch):
    """A stack of small matrices times one matrix is joined into one product where that
    pays; past the kernels' 32-bit index limit (8 GiB of float32 here: the limit lowered
    for the test) the joined matrix was refused, where no matrix of the user's is that
    large. It now runs as a stack."""
    import portgemm.operands as operands
    import portgemm.stacks as stacks

    for module in (operands, stacks):
        monkeypatch.setattr(module, "MAX_ELEMENTS", 1000)
    rng = np.random.default_rng(6)
    a = rng.standard_normal((8, 16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 3)).astype(np.float32)
    c = portgemm.matmul(a, b, device=device)
    assert relative_error(c, reference(a, b)) <= tolerance(np.float32, 16)


def test_read_only_operands(device):
    """A broadcast view is read-only; a stack of it times a matrix runs as one product."""
    rng = np.random.default_rng(5)
    row = operand((9, 23), np.float32, rng)
    stack = np.broadcast_to(row, (4, 9, 23))
    b = operand((23, 8), np.float32, rng)
    b.flags.writeable = False
    check(portgemm.matmul(stack, b, device=device), stack, b)
    check(portgemm.matmul(row, b, device=device), row, b)


class Recorder:
    """A stand-in for one 2-D product that records the shapes it is given."""

    def __init__(self):
        self.calls = []

    def __call__(self, a, b, out):
        self.calls.append((a.shape, b.shape))
        c = a.astype(np.float64) @ b.astype(np.float64)
        if out is None:
            return c.astype(a.dtype)
        out[...] = c
        return out


@pytest.mark.parametrize("shapes, products", [
    (((4, 13, 37), (37, 11)), [((52, 37), (37, 11))]),        # A's rows one after another
    (((2, 3, 13, 37), (1, 37, 11)), [((78, 37), (37, 11))]),
    (((13, 37), (5, 37, 11)), [((13, 37), (37, 55))]),        # B's matrices side by side
    (((1, 13, 37), (2, 5, 37, 11)), [((13, 37), (37, 110))]),
    (((37,), (5, 37, 11)), [((1, 37), (37, 55))]),
    (((13, 130), (3, 130, 130)), [((13, 130), (130, 130))] * 3),  # B's too large to join
    (((2, 13, 37), (2, 37, 11)), [((13, 37), (37, 11))] * 2),  # two stacks: a pair each
    (((2, 1, 13, 37), (3, 37, 11)), [((13, 37), (37, 11))] * 6),
    (((13, 37), (37,)), [((13, 37), (37, 1))]),
])
def test_a_stack_beside_one_matrix_is_one_product_where_that_pays(shapes, products):
    rng = np.random.default_rng(11)
    a, b = operand(shapes[0], np.float32, rng), operand(shapes[1], np.float32, rng)
    record = Recorder()
    check(matmul_stacks(a, b, record), a, b)
    assert record.calls == products


class StackRecorder(Recorder):
    """A stand-in for the backend's stack in one launch: records, then declines or runs."""

    def __init__(self, declines: bool):
        super().__init__()
        self.declines = declines

    def __call__(self, a, b, out):
        self.calls.append((a.shape, b.shape))
        if self.declines:
            return None
        c = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
        if out is None:
            return c
        out[...] = c
        return out


@pytest.mark.parametrize("shapes, launch", [
    (((4, 13, 37), (37, 11)), None),                       # A's rows: no launch asked
    (((13, 37), (5, 37, 11)), ((1, 13, 37), (5, 37, 11))),  # one A at a stride of 0
    (((2, 1, 13, 37), (3, 37, 11)), ((6, 13, 37), (6, 37, 11))),  # broadcast, joined
    (((2, 13, 37), (2, 37, 11)), ((2, 13, 37), (2, 37, 11))),
])
@pytest.mark.parametrize("declines", [False, True])
def test_a_stack_in_one_launch_before_side_by_side_or_pairs(shapes, launch, declines):
    rng = np.random.default_rng(23)
    a, b = operand(shapes[0], np.float32, rng), operand(shapes[1], np.float32, rng)
    record, whole = Recorder(), StackRecorder(declines)
    check(matmul_stacks(a, b, record, stack_product=whole), a, b)
    assert whole.calls == ([] if launch is None else [launch])
    assert (record.calls == []) == (launch is not None and not declines)


@pytest.mark.parametrize("a, b, error, says", [
    (np.float32(2), np.ones((2, 2), np.float32), ValueError, "0-D"),
    (np.ones((3, 4), np.float32), np.ones(5, np.float32), ValueError, "do not align"),
    (np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32), ValueError,
     "do not broadcast"),
    (np.ones((2, 3, 4), np.int32), np.ones((4, 5), np.int32), TypeError, "float32 and float64"),
    (np.ones(4, np.float32), np.ones(4, np.float64), TypeError, "both"),
    (np.broadcast_to(np.float32(1), (2, 2**16, 2**15 + 1)),
     np.broadcast_to(np.float32(1), (2**15 + 1, 1)), ValueError, "32-bit"),
])
def test_bad_input_raises_before_any_product(a, b, error, says):
    record = Recorder()
    with pytest.raises(error, match=says):
        matmul_stacks(a, b, record)
    assert record.calls == []
    with pytest.raises(error, match=says):
        portgemm.matmul(a, b)


def test_bad_out_raises(any_device):
    a, b = np.ones((3, 4, 5), np.float32), np.ones((5, 2), np.float32)
    read_only = np.empty((3, 4, 2), np.float32)
    read_only.flags.writeable = False
    for out, says in ((np.empty((3, 4, 3), np.float32), "must be a"),
                      (np.empty((3, 4, 2), np.float64), "must be a"),
                      (read_only, "read-only")):
        with pytest.raises(portgemm.ParameterError, match=says):
            portgemm.matmul(a, b, device=any_device, out=out)


def test_device_vectors_stay_on_the_device(device):
    import pyopencl.array as cl_array

    rng = np.random.default_rng(13)
    a, b, v = (operand(s, np.float32, rng) for s in ((21, 33), (33, 17), (33,)))
    a_dev, b_dev, v_dev = (portgemm.to_device(x, device) for x in (a, b, v))
    row = portgemm.matmul(v_dev, b_dev)
    column = portgemm.matmul(a_dev, v_dev)
    assert isinstance(row, cl_array.Array) and isinstance(column, cl_array.Array)
    check(row.get(), v, b)
    check(column.get(), a, v)
    with pytest.raises(ValueError, match="not both"):
        portgemm.matmul(np.ones((2, 21, 33), np.float32), b_dev)


@pytest.mark.parametrize("policy", ["svm", "host_ptr", "copy"])
def test_device_stacks_stay_on_the_device(device, policy, monkeypatch):
    """Stacks of device arrays run in one launch on their queue, C a device array there
    (or ``out``), however the device spaces the matrices (the policy sets the pitch:
    none, a cache line, the base alignment); a single matrix serves every product."""
    import pyopencl.array as cl_array

    from portgemm.backends import transfers

    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, policy)
    rng = np.random.default_rng(23)
    for sa, sb in [((5, 13, 37), (5, 37, 11)), ((13, 37), (4, 37, 11)),
                   ((3, 2, 9, 7), (3, 2, 7, 5)), ((4, 1, 37), (4, 37, 1))]:
        a, b = operand(sa, np.float32, rng), operand(sb, np.float32, rng)
        a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
        c = portgemm.matmul(a_dev, b_dev)
        assert isinstance(c, cl_array.Array) and c.queue == a_dev.queue
        check(c.get(), a, b)
        out = portgemm.to_device(np.full(c.shape, np.nan, np.float32), device)
        assert portgemm.matmul(a_dev, b_dev, out=out) is out
        check(out.get(), a, b)
    # every element written: C poisoned on the device first
    a, b = stacked_operands((3, 3, 13, 11, 37), np.float32)
    a_dev, b_dev = portgemm.to_device(a, device), portgemm.to_device(b, device)
    resolved = opencl.BACKEND.resolve(device, "tiled", None, (13, 11, 37), a.dtype)
    result = opencl.BACKEND.run_stack(resolved, a_dev, b_dev, poison=np.nan)
    for index in range(3):
        check(result.c.get()[index], a[index], b[index])


def test_device_stacks_beyond_one_launch(any_device):
    """A device stack broadcasts only a single matrix; where the stack cannot run in one
    launch (phvm) it runs a pair at a time, C on the device, ``out`` too; one of no
    products, or K = 0, gives numpy's empty or zero C on the device."""
    dev = functools.partial(portgemm.to_device, device=any_device)
    a, b = np.ones((2, 1, 3, 4), np.float32), np.ones((1, 3, 4, 5), np.float32)
    with pytest.raises(ValueError, match="single matrix"):
        portgemm.matmul(dev(a), dev(b))
    rng = np.random.default_rng(29)
    a, b = operand((3, 5, 40), np.float32, rng), operand((3, 40, 6), np.float32, rng)
    check(portgemm.matmul(dev(a), dev(b), variant="phvm").get(), a, b)
    out = dev(np.full((3, 5, 6), np.nan, np.float32))
    assert portgemm.matmul(dev(a[:1]), dev(b), variant="phvm", out=out) is out
    check(out.get(), a[:1], b)
    zeros = portgemm.matmul(dev(np.ones((2, 3, 0), np.float32)),
                            dev(np.ones((2, 0, 5), np.float32)))
    assert zeros.shape == (2, 3, 5) and not zeros.get().any()
    assert portgemm.matmul(dev(np.ones((0, 3, 4), np.float32)),
                           dev(np.ones((0, 4, 5), np.float32))).shape == (0, 3, 5)


def test_device_stack_views_that_are_not_contiguous(device):
    """Views of device stacks (every other matrix, columns of each, a transposed stack)
    go a pair at a time, each matrix a view the backend reads: they raised a TypeError
    from inside the one-launch path, or pyopencl's 'cannot reshape without copy'."""
    dev = functools.partial(portgemm.to_device, device=device)
    rng = np.random.default_rng(31)
    s, b = operand((8, 5, 6), np.float32, rng), operand((8, 6, 7), np.float32, rng)
    w, t = operand((6, 7), np.float32, rng), operand((8, 5, 4), np.float32, rng)
    s_dev, b_dev, w_dev, t_dev = dev(s), dev(b), dev(w), dev(t)
    for c, a_, b_ in [(portgemm.matmul(s_dev[:, :, 2:5], b_dev[:, 2:5]), s[:, :, 2:5],
                       b[:, 2:5]),
                      (portgemm.matmul(s_dev[::2], b_dev[::2]), s[::2], b[::2]),
                      (portgemm.matmul(s_dev.transpose((0, 2, 1)), t_dev),
                       s.transpose((0, 2, 1)), t),
                      (portgemm.matmul(s_dev[::2], w_dev), s[::2], w),
                      (portgemm.matmul(s_dev[:, 1:4], w_dev), s[:, 1:4], w)]:
        check(portgemm.to_host(c), a_, b_)


def test_an_empty_stack_still_checks_the_variant(any_device):
    """No product, but the variant and its parameters are checked, as gemm checks them
    for an empty product (stacks of no matrices on both sides raised nothing)."""
    for dev in (lambda x: x, functools.partial(portgemm.to_device, device=any_device)):
        a, b = dev(np.ones((0, 5, 6), np.float32)), dev(np.ones((0, 6, 7), np.float32))
        with pytest.raises(portgemm.ParameterError, match="unknown variant"):
            portgemm.matmul(a, b, variant="nosuch", device=any_device)
        with pytest.raises(portgemm.ParameterError, match="no parameter bogus"):
            portgemm.matmul(a, b, variant="tiled", params={"bogus": 1}, device=any_device)
        assert portgemm.matmul(a, b, device=any_device).shape == (0, 5, 7)


def test_the_host_backend_takes_stacks_too():
    rng = np.random.default_rng(17)
    for shapes in (((3, 9, 14), (14, 5)), ((9, 14), (2, 14, 5)), ((2, 9, 14), (2, 14, 5))):
        a, b = operand(shapes[0], np.float64, rng), operand(shapes[1], np.float64, rng)
        check(portgemm.matmul(a, b, backend="host", variant="serial-ikj"), a, b)


# --- a stack in one launch (kernels_cl/common.h: STACKED) -------------------------------

from portgemm.backends import opencl  # noqa: E402
from portgemm.families import get_variant  # noqa: E402
from portgemm.families.sources import read_kernel  # noqa: E402

# (count of A's matrices, of B's, M, N, K): one matrix serving every product on either
# side, matrices whose values are not a whole alignment apart (pitched), 1 and primes
STACKED = [(3, 3, 13, 11, 37), (1, 4, 17, 8, 29), (5, 1, 1, 31, 7), (2, 2, 64, 64, 1),
           (3, 3, 1, 1, 67)]


def stacked_operands(counts, dtype, seed=0):
    sa, sb, m, n, k = counts
    rng = np.random.default_rng([seed, *counts])
    return operand((sa, m, k), dtype, rng), operand((sb, k, n), dtype, rng)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_stacking_variant_runs_a_stack_in_one_launch(device, dtype):
    """Each product of the stack, poisoned first, against float64; the variants whose
    kernels do not take a stack say so with None."""
    for name in portgemm.variants(device):
        impl = get_variant(name)
        for counts in STACKED:
            a, b = stacked_operands(counts, dtype)
            try:
                resolved = opencl.BACKEND.resolve(device, name, None, (
                    a.shape[1], b.shape[2], a.shape[2]), a.dtype)
            except portgemm.ParameterError:  # wgmma has no float64
                assert dtype == np.float64, name
                break
            result = opencl.BACKEND.run_stack(resolved, a, b, poison=np.nan)
            if not impl.stacks:
                assert result is None, name
                continue
            assert result is not None and result.kernel_ms > 0, (name, counts)
            c = result.c
            assert c.shape == (max(a.shape[0], b.shape[0]), a.shape[1], b.shape[2])
            for index in range(c.shape[0]):
                check(c[index], a[min(index, a.shape[0] - 1)], b[min(index, b.shape[0] - 1)])


def test_families_that_stack_enter_the_stack_in_their_kernel():
    """``stacks`` says the kernel takes STACK_ARGS: its source starts a product with
    ENTER_STACK or ENTER_STACK_OF (or SPLIT_K, which holds it)."""
    for name in portgemm.variants():
        impl = get_variant(name)
        source = read_kernel(impl.source_file)
        enters = ("ENTER_STACK;" in source or "SPLIT_K(" in source
                  or re.search(r"ENTER_STACK_OF\(\w+\);", source) is not None)
        assert enters == impl.stacks, name


def test_two_stacks_are_one_launch_and_a_plan_of_two_launches_is_not(any_device, monkeypatch):
    calls = {"run": 0, "stack": 0}
    run, run_stack = opencl.OpenCLBackend.run, opencl.OpenCLBackend.run_stack

    def counting_run(self, *args, **kwargs):
        calls["run"] += 1
        return run(self, *args, **kwargs)

    def counting_stack(self, *args, **kwargs):
        calls["stack"] += 1
        return run_stack(self, *args, **kwargs)

    monkeypatch.setattr(opencl.OpenCLBackend, "run", counting_run)
    monkeypatch.setattr(opencl.OpenCLBackend, "run_stack", counting_stack)
    rng = np.random.default_rng(19)
    a, b = operand((6, 21, 35), np.float32, rng), operand((6, 35, 9), np.float32, rng)
    check(portgemm.matmul(a, b, device=any_device, variant="tiled"), a, b)
    assert calls == {"run": 0, "stack": 1}
    # tallskinny's groups along K sum their slices in a second launch: a stack of as many
    # products as groups takes one group a product instead, a shorter one a call a pair
    for groups, runs in ((6, 0), (7, 6)):
        check(portgemm.matmul(a, b, device=any_device, variant="tallskinny",
                              params={"GS": groups, "BS": 1}), a, b)
        assert calls == {"run": runs, "stack": 2 + (groups == 7)}


def test_a_stack_drops_split_k_always_and_packing_for_small_products(any_device, monkeypatch):
    a, b = stacked_operands((3, 3, 20, 24, 40), np.float32)
    shape = (20, 24, 40)
    split = opencl.BACKEND.resolve(any_device, "xgemm", {"KSPLIT": 2}, shape, a.dtype)
    result = opencl.BACKEND.run_stack(split, a, b)
    assert result is not None and result.params["KSPLIT"] == 1
    for index in range(3):
        check(result.c[index], a[index], b[index])
    packed = opencl.BACKEND.resolve(any_device, "panel", {"PACKED": 1}, shape, a.dtype)
    assert opencl.BACKEND.run_stack(packed, a, b).params["PACKED"] == 0
    monkeypatch.setattr(opencl, "STACK_UNPACKED_WORK", 20 * 24 * 40 - 1)
    assert opencl.BACKEND.run_stack(packed, a, b) is None  # a call a product keeps packing


@pytest.mark.parametrize("params", [
    {"ROWVEC": 1, "BS": 1, "tile_y": 2, "tile_x": 20, "KU": 2},          # a CPU's form
    {"ROWVEC": 0, "BS": 32, "tile_y": 3, "tile_x": 4, "REDUCE": 1, "TG": 2},  # a GPU's
    {"ROWVEC": 0, "BS": 16, "tile_y": 4, "tile_x": 4, "REDUCE": 0, "FUSE": 1}])
def test_tallskinny_stacks_with_one_group_along_k(any_device, params):
    """Each product of C's tiles (edges included), poisoned first, in one launch: the
    groups along K (GS, as many as the products) and the last group's sum (FUSE) give
    way to one group."""
    for counts in [(4, 4, 7, 9, 301), (1, 5, 5, 41, 64), (3, 1, 11, 3, 1000)]:
        a, b = stacked_operands(counts, np.float32)
        count = max(a.shape[0], b.shape[0])
        resolved = opencl.BACKEND.resolve(any_device, "tallskinny", {**params, "GS": count},
                                          (a.shape[1], b.shape[2], a.shape[2]), a.dtype)
        result = opencl.BACKEND.run_stack(resolved, a, b, poison=np.nan)
        assert result is not None and result.params["GS"] == 1, counts
        for index in range(result.c.shape[0]):
            check(result.c[index], a[min(index, a.shape[0] - 1)],
                  b[min(index, b.shape[0] - 1)])


@pytest.mark.parametrize("reduce_", [0, 1])
def test_tallskinny_stacks_share_the_groups_along_k_where_the_last_group_sums(device,
                                                                                reduce_):
    """With FUSE (the last group of a tile sums its slices: one launch), a stack runs
    the product's share of the groups along K, each product with slices and tickets of
    its own: every product, poisoned first, right, and bitwise the same when run again
    (the tickets left at zero for the next launch)."""
    params = {"ROWVEC": 0, "BS": 32, "tile_y": 3, "tile_x": 4, "REDUCE": reduce_, "FUSE": 1,
              "TG": 2}
    for counts in [(4, 4, 7, 9, 3001), (1, 5, 5, 11, 640), (3, 1, 2, 3, 1000)]:
        a, b = stacked_operands(counts, np.float32)
        count = max(a.shape[0], b.shape[0])
        try:
            resolved = opencl.BACKEND.resolve(device, "tallskinny", {**params, "GS": 3 * count},
                                              (a.shape[1], b.shape[2], a.shape[2]), a.dtype)
        except portgemm.ParameterError as refused:  # PoCL 5 and the butterfly
            pytest.skip(str(refused))
        first = opencl.BACKEND.run_stack(resolved, a, b, poison=np.nan)
        assert first is not None and first.params["GS"] == 3, counts
        for index in range(count):
            check(first.c[index], a[min(index, a.shape[0] - 1)], b[min(index, b.shape[0] - 1)])
        again = opencl.BACKEND.run_stack(resolved, a, b, poison=np.nan)
        assert np.array_equal(again.c, first.c)


def test_a_stack_with_b_in_place_past_a_partial_group_of_columns(device):
    """A stack cannot pack B (a launch of its own), so panel's stack reads B in place,
    its last group of columns partial (read on into the next rows, never stored): each
    product, poisoned first, against float64, into ``out`` as well."""
    for counts in [(1, 5, 13, 100, 37), (3, 3, 9, 20, 11)]:
        a, b = stacked_operands(counts, np.float32)
        shape = (a.shape[1], b.shape[2], a.shape[2])
        resolved = opencl.BACKEND.resolve(device, "panel", {"tile_x": 4, "wg_x": 16,
                                                            "PACKED": 1}, shape, a.dtype)
        out = np.full((max(a.shape[0], b.shape[0]), a.shape[1], b.shape[2]), np.nan,
                      np.float32)
        result = opencl.BACKEND.run_stack(resolved, a, b, out=out, poison=np.nan)
        assert result is not None and result.c is out and result.params["PACKED"] == 0
        for index in range(out.shape[0]):
            check(out[index], a[min(index, a.shape[0] - 1)], b[min(index, b.shape[0] - 1)])


@pytest.mark.parametrize("policy", ["svm", "host_ptr", "staged", "copy"])
def test_a_stack_in_one_launch_under_every_transfer_policy(device, policy, monkeypatch):
    """Device memory (staged, copy: a GPU's) pitches the matrices to the device's base
    alignment; host memory read in place to a cache line (host_ptr) or not at all (svm)."""
    from portgemm.backends import transfers

    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, policy)
    for counts in STACKED:
        a, b = stacked_operands(counts, np.float32, seed=1)
        out = np.full((max(a.shape[0], b.shape[0]), a.shape[1], b.shape[2]), np.nan,
                      np.float32)
        assert portgemm.matmul(a, b, device=device, variant="vec", out=out) is out
        for index in range(out.shape[0]):
            check(out[index], a[min(index, a.shape[0] - 1)], b[min(index, b.shape[0] - 1)])


@pytest.mark.parametrize("policy", ["svm", "staged", "copy"])
def test_the_host_lays_out_no_stack_in_device_memory_or_svm(device, policy, monkeypatch):
    """Through SVM the kernels read the stack where it lies; in device memory the
    matrices go up as they lie and the device spaces them out to its alignment (and C
    back). The host lays out nothing (stack_layout.packed unused), and every product, C
    poisoned first, is right."""
    from portgemm.backends import transfers

    def no_host_layout(*args, **kwargs):
        raise AssertionError("a stack laid out on the host")

    monkeypatch.setenv(transfers.TRANSFER_ENV_VAR, policy)
    monkeypatch.setattr(transfers, "packed", no_host_layout)
    for counts in STACKED:
        a, b = stacked_operands(counts, np.float32, seed=2)
        resolved = opencl.BACKEND.resolve(device, "tiled", None,
                                          (a.shape[1], b.shape[2], a.shape[2]), a.dtype)
        result = opencl.BACKEND.run_stack(resolved, a, b, poison=np.nan)
        for index in range(result.c.shape[0]):
            check(result.c[index], a[min(index, a.shape[0] - 1)],
                  b[min(index, b.shape[0] - 1)])


def test_stacks_whose_joined_matrices_do_not_fit_run_a_pair_at_a_time(any_device):
    """On a device of 4 MiB buffers, a stack whose matrices each fit runs, where joining
    them (A's rows one after another, B's side by side) made one past the limit: a
    ParameterError naming a matrix the caller never passed. A device C's stack is one
    array: past the limit it is a ParameterError before any buffer, not the driver's
    INVALID_BUFFER_SIZE."""
    import dataclasses

    small = dataclasses.replace(any_device, max_mem_alloc_size=4 << 20)
    rng = np.random.default_rng(0)
    for a, b in [(rng.random((4, 600, 600)), rng.random((600, 1))),
                 (rng.random((2000, 100)), rng.random((40, 100, 100)))]:
        c = portgemm.matmul(a, b, device=small)
        assert relative_error(c, reference(a, b)) <= tolerance(np.float64, a.shape[-1])
    a_dev = portgemm.to_device(rng.random((2, 600, 1)), small)
    b_dev = portgemm.to_device(rng.random((2, 1, 600)), small)
    with pytest.raises(portgemm.ParameterError, match="c's stack.*max_mem_alloc_size"):
        portgemm.matmul(a_dev, b_dev)
