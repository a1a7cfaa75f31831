"""A program is built once per (device, source, options); a kernel is retrieved once."""

import dataclasses
import os
import time

import numpy as np
import pytest

import portgemm
from portgemm.runtime import NDRange, Queue


def test_second_matmul_builds_nothing(any_device):
    queue = Queue.for_device(any_device)
    a = np.ones((33, 17), np.float32)
    b = np.ones((17, 9), np.float32)
    portgemm.matmul(a, b, device=any_device, variant="inreg", params={"length": 5})
    builds = queue.builds
    kernels = len(queue._kernels)
    for _ in range(3):
        portgemm.matmul(a, b, device=any_device, variant="inreg", params={"length": 5})
    assert queue.builds == builds
    assert len(queue._kernels) == kernels


def test_new_options_build_once_more(any_device):
    queue = Queue.for_device(any_device)
    a = np.ones((5, 5), np.float32)
    before = queue.builds
    portgemm.matmul(a, a, device=any_device, variant="inreg", params={"length": 7})
    portgemm.matmul(a, a, device=any_device, variant="inreg", params={"length": 7})
    assert queue.builds == before + 1


def test_queue_is_shared_per_device(any_device):
    assert Queue.for_device(any_device) is Queue.for_device(any_device.filter_string)



def test_inline_ptx_is_announced_to_nvidia_compilers_only(any_device):
    """Kernels may use inline PTX (xgemm's asynchronous copies) only where PORTGEMM_PTX
    says the compiler is NVIDIA's."""
    real = Queue.for_device(any_device)
    if "nvidia" not in any_device.vendor.lower():
        assert real.device_options == ()
    for vendor, options in (("NVIDIA Corporation", ("-DPORTGEMM_PTX=1",)),
                            ("Intel(R) Corporation", ()), ("GenuineIntel", ()),
                            ("Advanced Micro Devices, Inc.", ())):
        queue = object.__new__(Queue)
        queue.device = dataclasses.replace(any_device, vendor=vendor, handle=None)
        assert queue.device_options == options, vendor
        assert queue.device.takes_ptx == bool(options)
    # with the driver's compute capability, kernels learn it too (mma.cl's sm_90 shape)
    from types import SimpleNamespace

    queue = object.__new__(Queue)
    queue.device = dataclasses.replace(any_device, vendor="NVIDIA Corporation", handle=(
        SimpleNamespace(compute_capability_major_nv=9, compute_capability_minor_nv=0)))
    assert queue.device_options == ("-DPORTGEMM_PTX=1", "-DPORTGEMM_SM=90")


KERNEL = "__kernel void fill(__global float *x) { x[get_global_id(0)] = VALUE; }"


def test_programs_past_the_limit_drop_the_least_recently_used(any_device, tmp_path,
                                                              monkeypatch):
    """A queue keeps PROGRAMS_KEPT programs; past it the one used longest ago goes, with
    its kernels, and comes back from the disk cache when asked for again."""
    from portgemm.runtime import queue as queue_module

    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(tmp_path))
    monkeypatch.setattr(queue_module, "PROGRAMS_KEPT", 2)
    queue = Queue(any_device)
    first, second, third = ((f"-DVALUE={v}.0f",) for v in (1, 2, 3))
    kept = queue.kernel(KERNEL, "fill", first)
    queue.kernel(KERNEL, "fill", second)
    assert queue.kernel(KERNEL, "fill", first) is kept  # first is now the more recent
    queue.kernel(KERNEL, "fill", third)                 # so second goes
    assert len(queue._programs) == 2 and len(queue._kernels) == 2
    assert queue.kernel(KERNEL, "fill", first) is kept
    assert (queue.builds, queue.compiled) == (3, 3)
    queue.kernel(KERNEL, "fill", second)  # back from disk, and third goes
    assert (queue.builds, queue.compiled) == (4, 3)
    assert {options for _, options, _ in queue._kernels} == {first, second}
    x = queue.empty(16)
    queue.submit(queue.kernel(KERNEL, "fill", third), NDRange(4, 4), x)
    assert queue.to_host(x, np.empty(4, np.float32)).tolist() == [3.0] * 4


def test_the_disk_cache_keeps_the_programs_used_last(tmp_path, monkeypatch):
    """Past its bound the folder loses the files used longest ago, down to three
    quarters of it; a load counts as a use; files not its own stay."""
    from portgemm.runtime import program_cache

    for age, name in enumerate("abcdef"):  # a: the oldest, f: the newest
        path = tmp_path / f"{name * 40}{program_cache.SUFFIX}"  # a key: 40 hex digits
        path.write_bytes(b"x" * 100)
        os.utime(path, ns=(age * 10**9, age * 10**9))
    for other in ("unrelated.txt", "notes.bin"):  # not programs: left alone
        (tmp_path / other).write_bytes(b"x" * 1000)
        os.utime(tmp_path / other, ns=(0, 0))
    program_cache.trim(tmp_path, limit=600)  # 600 bytes held: nothing to do
    assert len(list(tmp_path.glob("*.bin"))) == 7
    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(tmp_path))
    monkeypatch.setattr(program_cache, "program_key", lambda *args: "a" * 40)
    assert program_cache.load(None, "", ()) == b"x" * 100  # a is now the newest
    program_cache.trim(tmp_path, limit=500)  # over: down to 375 bytes, three files
    assert sorted(p.stem[0] for p in tmp_path.glob("*.bin") if p.stem != "notes") == [
        "a", "e", "f"]
    assert (tmp_path / "unrelated.txt").exists() and (tmp_path / "notes.bin").exists()


def test_clearing_the_disk_cache_deletes_programs_only(any_device, tmp_path, monkeypatch):
    """clear_caches(disk=True) deletes the programs of the folder PORTGEMM_PROGRAM_CACHE
    names, never other files there (it deleted the whole folder), and the folder where
    it is left empty."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("precious")
    (mine / "notes.bin").write_bytes(b"mine too")
    for folder, keeps in ((mine, {"notes.txt", "notes.bin"}), (tmp_path / "only", None)):
        monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(folder))
        portgemm.clear_caches()
        a = np.ones((8, 8), np.float32)
        portgemm.matmul(a, a, device=any_device)
        assert any(name.endswith(".bin") and name not in (keeps or ())
                   for name in os.listdir(folder))
        portgemm.clear_caches(disk=True)
        if keeps is None:
            assert not folder.exists()
        else:
            assert set(os.listdir(folder)) == keeps


def test_the_cache_turned_off(any_device, tmp_path, monkeypatch):
    """'no' and 'disabled' turn it off as 'off' does (each made a folder of that name in
    the working folder); clear_caches(disk=True) with it off deletes the programs that
    earlier runs kept in the default folder (left before)."""
    from portgemm.runtime import program_cache

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PORTGEMM_PROGRAM_CACHE", raising=False)
    portgemm.clear_caches()
    a = np.ones((8, 8), np.float32)
    portgemm.matmul(a, a, device=any_device)
    default = tmp_path / "cache" / "portgemm" / "programs"
    assert list(default.glob("*.bin"))
    for value in ("no", "disabled", "off"):
        monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", value)
        assert program_cache.cache_folder() is None
    portgemm.clear_caches(disk=True)
    assert not default.exists() and not (tmp_path / "no").exists()


def test_a_store_that_fails_leaves_no_file(tmp_path, monkeypatch):
    """A write that fails half-way (a full disk) leaves nothing in the folder, which
    trim, counting programs only, would never delete (files.write_atomically, which
    every file portgemm writes goes through)."""

    from portgemm import files
    from portgemm.runtime import program_cache

    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(tmp_path))
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, fd, mode):
            self.file = real_fdopen(fd, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[:10])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fdopen", FullDisk)
    monkeypatch.setattr(program_cache, "program_key", lambda *args: "a")
    program_cache.store(None, "source", (), b"x" * 100)
    assert list(tmp_path.iterdir()) == []


def test_queues_of_other_code_are_kept_a_bounded_few(any_device, monkeypatch):
    """Each pyopencl queue that arrays come on is wrapped once and reused; past
    WRAPPED_KEPT the one used longest ago is dropped (a caller making a queue per task
    grew the process by a queue's programs each time)."""
    import pyopencl as cl
    import pyopencl.array as cl_array

    from portgemm.runtime import queue as queue_module

    monkeypatch.setattr(queue_module, "WRAPPED_KEPT", 2)
    monkeypatch.setattr(Queue, "_wrapped", {})
    context = cl.Context([any_device.handle])
    queues = [cl.CommandQueue(context) for _ in range(3)]
    a = np.ones((8, 8), np.float32)
    wrappers = []
    for order in (0, 1, 0, 2):  # 0 is used again before 2 comes, so 1 goes
        x = cl_array.to_device(queues[order], a)
        np.testing.assert_array_equal(portgemm.matmul(x, x).get(), a @ a)
        wrappers.append(Queue.for_cl_queue(queues[order]))
    assert wrappers[0] is wrappers[2]
    assert set(Queue._wrapped) == {queues[0], queues[2]}


def test_a_program_loads_from_a_folder_it_cannot_mark(tmp_path, monkeypatch):
    from portgemm.runtime import program_cache

    (tmp_path / f"a{program_cache.SUFFIX}").write_bytes(b"binary")
    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(tmp_path))
    monkeypatch.setattr(program_cache, "program_key", lambda *args: "a")

    def refused(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(program_cache.os, "utime", refused)
    assert program_cache.load(None, "", ()) == b"binary"


def test_clear_caches_takes_a_bool_only():
    """disk="no" is a true string: it deleted the disk caches."""
    for value in ("no", 0, None):
        with pytest.raises(TypeError, match="True or False"):
            portgemm.clear_caches(disk=value)


def test_what_the_disk_cache_does_not_keep(any_device, tmp_path, monkeypatch):
    """A source that includes a file (its key cannot see the header change: an edited
    header's old binary was loaded and run) and any program where others may write the
    folder (their binaries would run as this user's) are not cached on disk."""
    from portgemm.runtime import program_cache

    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(tmp_path / "programs"))
    header = tmp_path / "value.h"
    source = '#include "value.h"\n__kernel void f(__global float *x) { x[get_global_id(0)] = VALUE; }'
    results = []
    for value in (1, 2):
        header.write_text(f"#define VALUE {value}.0f\n")
        program_cache_queue = Queue(any_device)  # a fresh queue: no program in memory
        x = program_cache_queue.empty(16)
        kernel = program_cache_queue.kernel(source, "f", ("-I", str(tmp_path)))
        program_cache_queue.submit(kernel, NDRange(4, 4), x).wait()
        results.append(program_cache_queue.to_host(x, np.empty(4, np.float32))[0])
    assert results == [1.0, 2.0]
    assert not list((tmp_path / "programs").glob("*.bin"))
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(shared))
    program_cache._say_once.cache_clear()
    with pytest.warns(RuntimeWarning, match="writable by group or others"):
        program_cache.store(any_device, "kernel source", (), b"binary")
    assert list(shared.iterdir()) == []
    (shared / f"{'a' * 40}{program_cache.SUFFIX}").write_bytes(b"planted")
    monkeypatch.setattr(program_cache, "program_key", lambda *args: "a" * 40)
    assert program_cache.load(any_device, "kernel source", ()) is None


def test_a_cache_folder_that_cannot_be_had_is_said_once_in_its_own_words(any_device,
                                                                         tmp_path,
                                                                         monkeypatch):
    """A path that is a file, or under one, is not a security matter: the warning says
    what is wrong, once for loading and storing alike (it blamed another user's
    binaries, in two wordings)."""
    import warnings

    from portgemm.runtime import program_cache

    afile = tmp_path / "afile"
    afile.write_text("")
    for path, says in [(afile, "is not a folder"), (afile / "programs", "cannot be made or used")]:
        monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(path))
        program_cache._say_once.cache_clear()
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            assert program_cache.load(any_device, "kernel source", ()) is None
            program_cache.store(any_device, "kernel source", (), b"binary")
        messages = [str(w.message) for w in said]
        assert len(messages) == 1 and says in messages[0], messages
        assert "another user" not in messages[0]


def test_a_trim_removes_what_a_killed_write_left(tmp_path):
    from portgemm.runtime import program_cache

    old, fresh = (tmp_path / f".{c * 40}{program_cache.SUFFIX}.tmp{c}" for c in "ab")
    for path in (old, fresh):
        path.write_bytes(b"half a binary")
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    program_cache.trim(tmp_path)
    assert not old.exists() and fresh.exists()  # a fresh one may be another's write
