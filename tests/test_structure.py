"""The package's structure: kernels that compile alone and declare their parameters, one
backend registry, no import cycle, no public name shadowing a module, caches that clear."""

from __future__ import annotations

import ast
import builtins
import pkgutil
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import portgemm
from portgemm.backends import REGISTRY as BACKENDS
from portgemm.backends import get_backend
from portgemm.families import REGISTRY
from portgemm.families.sources import kernel_parameters, kernels_dir, read_kernel
from portgemm.runtime import Queue

PACKAGE = Path(portgemm.__file__).parent
PRELUDE = set(kernel_parameters("common.h"))


def package_modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports_of(name: str, path: Path, modules: dict) -> set[str]:
    """Package modules a module imports, at any depth in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # "from pkg import sub" imports the submodule when there is one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        found |= {t for t in targets if t in modules and t != name}
    return found


def test_no_import_cycle():
    modules = package_modules()
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = trail[trail.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_import_portgemm_loads_no_tuner_and_no_backend():
    code = ("import sys, portgemm; print(sorted(m for m in sys.modules "
            "if m.startswith(('portgemm.tune', 'portgemm.backends.', 'portgemm.auto'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_gemm_loads_no_tuner():
    code = ("import sys, numpy as np, portgemm; a = np.ones((5, 5), np.float32); "
            "portgemm.matmul(a, a); print(sorted(m for m in sys.modules "
            "if m.startswith('portgemm.tune')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("order", ["package first", "submodules first"])
def test_no_public_name_shadows_a_module(order):
    """``import portgemm.X`` gives the module X and ``portgemm.X`` stays what it was, for
    every public name, whichever is imported first (checked in a fresh interpreter)."""
    code = f"""
import importlib, pkgutil, sys
first = {order!r} == "submodules first"
names = [m.name for m in pkgutil.iter_modules(importlib.util.find_spec('portgemm').submodule_search_locations)]
if first:
    for name in names:
        if name not in ('__main__',):
            importlib.import_module('portgemm.' + name)
import portgemm
clash = sorted(set(portgemm.__all__) & set(names))
print(clash)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    modules = {m.name for m in pkgutil.iter_modules(portgemm.__path__)}  # real ones only:
    assert not set(portgemm.__all__) & modules  # a folder left with only __pycache__ is not
    assert callable(portgemm.variants)


def test_every_kernel_file_compiles_alone(any_device):
    """No -D option at all: each file's #ifndef defaults (and the prelude's) suffice."""
    queue = Queue(any_device)
    files = sorted(p.name for p in kernels_dir().glob("*.cl"))
    assert {v.source_file for v in REGISTRY.values()} <= set(files)
    for name in files:
        queue.program(read_kernel(name), ())
    assert queue.builds == len(files)


def test_kernels_declare_every_parameter_with_a_comment():
    for name in [p.name for p in kernels_dir().glob("*.cl")] + ["common.h"]:
        for parameter in kernel_parameters(name).values():
            assert parameter.doc, f"{name}: {parameter.name} has no comment"
            int(parameter.default) if parameter.name != "REAL" else None


@pytest.mark.parametrize("name", list(REGISTRY))
def test_defines_are_exactly_what_the_kernel_declares(name):
    variant = REGISTRY[name]
    passed = set(variant.defines(variant.resolve(None)))
    declared = set(kernel_parameters(variant.source_file))
    assert passed == declared, f"{name}: python passes {passed}, kernel declares {declared}"


def test_xgemm_parameters_come_from_the_kernel():
    from portgemm.families.xgemm import PARAMETERS, PORTABLE_DEFAULTS

    declared = kernel_parameters("xgemm.cl")
    assert list(PARAMETERS) == list(declared)
    assert PORTABLE_DEFAULTS == {k: int(p.default) for k, p in declared.items()}
    assert REGISTRY["xgemm"].defaults == PORTABLE_DEFAULTS


@pytest.mark.parametrize("name", ["tiled", "inreg", "local", "xgemm"])
def test_tile_means_the_same_block_of_c_in_every_family(name):
    variant = REGISTRY[name]
    for tile in ((8, 8), (2, 4), (4, 1)):
        params = variant.resolve({"tile_y": tile[0], "tile_x": tile[1]})
        assert variant.elements_per_item(params) == tile


def test_xgemm_maps_the_common_work_group_names():
    xgemm = REGISTRY["xgemm"]
    params = xgemm.resolve({"wg_y": 8, "wg_x": 32, "tile_y": 4, "tile_x": 2, "tile_k": 16,
                            "vw": 2})
    assert xgemm.work_group(params) == (8, 32)
    assert (params["KWG"], params["VW"], params["MWG"], params["NWG"]) == (16, 2, 32, 64)
    with pytest.raises(portgemm.ParameterError, match="also given"):
        xgemm.resolve({"wg_y": 8, "MDIMC": 16})


def test_every_backend_answers_the_protocol():
    for name in BACKENDS:
        backend = get_backend(name)
        assert backend.name == name
        for method in ("device", "devices", "label", "variants", "variant", "resolve", "run"):
            assert callable(getattr(backend, method)), (name, method)


def test_no_backend_chain_outside_the_registry():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "backend ==" in line.replace(" ", " ") or "backend !=" in line:
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not offenders, offenders


def test_clear_caches_forgets_everything(any_device):
    from portgemm.caches import registered

    a = np.ones((9, 9), np.float32)
    portgemm.matmul(a, a, device=any_device)
    before = Queue.for_device(any_device)
    assert len(registered()) >= 10
    portgemm.clear_caches()
    assert Queue.for_device(any_device) is not before
    assert np.all(portgemm.matmul(a, a, device=any_device) == 9)



def test_clear_caches_gives_back_the_memory_of_deleted_arrays(any_device):
    """A queue's pool keeps a deleted array's buffer for its next array; clear_caches()
    gives it back, also where an array still alive keeps the forgotten queue's pool."""
    kept = portgemm.to_device(np.ones(16, np.float32), any_device)
    gone = portgemm.to_device(np.ones(1 << 20, np.float32), any_device)
    pool = Queue.for_device(any_device).allocator
    del gone
    assert pool.held_blocks >= 1
    portgemm.clear_caches()
    assert pool.held_blocks == 0 and pool.active_blocks >= 1
    assert kept.get()[0] == 1

# Module-level dicts that are not caches, each with the reason it is not cleared.
NOT_CACHES = {
    "caches.py": "_clearers",             # the registry itself
    "backends/__init__.py": "_loaded",    # backends imported so far (modules, not answers)
    "backends/transfers.py": "_pinned",   # which live arrays are pinned (bookkeeping)
    "distributed/mpi.py": "_local_ranks",  # a collective's answer: clearing on one rank hangs
    "distributed/staging.py": "_windows",  # freed by a collective: clearing on one rank hangs
    "runtime/queue.py": "_user_queue_locks",  # forgetting a lock a thread holds lets two in
}


def test_every_module_level_dict_is_a_registered_cache_or_named_here():
    """A process cache made as a bare ``{}`` escapes clear_caches(): they are made with
    caches.cache_dict or memoize, and the few dicts that are not caches are listed."""
    pattern = re.compile(r"^(_\w+)\s*(?::[^=]+)?=\s*\{\}")
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found = pattern.match(line)
            if found and NOT_CACHES.get(relative) != found.group(1):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert not offenders, offenders


def test_programs_are_loaded_from_disk_in_a_new_process(any_device, tmp_path, monkeypatch):
    monkeypatch.setenv("PORTGEMM_PROGRAM_CACHE", str(tmp_path))
    source = read_kernel("naive.cl")
    first = Queue(any_device)
    first.program(source, ("-DREAL=float",))
    assert first.compiled == 1 and len(list(tmp_path.iterdir())) == 1
    second = Queue(any_device)  # a new queue has no programs in memory, like a new process
    second.program(source, ("-DREAL=float",))
    assert second.builds == 1 and second.compiled == 0
    for path in tmp_path.iterdir():  # a damaged file is compiled again and replaced
        path.write_bytes(b"not a program")
    third = Queue(any_device)
    third.program(source, ("-DREAL=float",))
    assert third.compiled == 1
    portgemm.clear_caches(disk=True)
    assert not tmp_path.exists()


def test_moved_threads_names_warn():
    import portgemm.backends.threads as threads
    from portgemm.parallel import parallel_for

    with pytest.warns(DeprecationWarning, match="portgemm.parallel"):
        assert threads.parallel_for is parallel_for
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert callable(threads.gemm_threads)


def test_setup_cfg_lists_every_package():
    import configparser

    config = configparser.ConfigParser()
    config.read(PACKAGE.parent / "setup.cfg")
    listed = set(config["options"]["packages"].split())
    present = {".".join(p.relative_to(PACKAGE.parent).parts[:-1])
               for p in PACKAGE.rglob("__init__.py")}
    assert listed == present | {"portgemm.kernels_cl"}


def evaluated_unions(tree: ast.AST) -> list[int]:
    """Lines where an ``X | Y`` of types is evaluated when the code runs (an alias, a
    default, an isinstance): Python 3.9 raises TypeError there. Annotations are left
    out: every module takes ``from __future__ import annotations``, so they stay text."""
    found = []

    def is_type(node) -> bool:  # None, a builtin type, or a subscripted one
        return (isinstance(node, ast.Constant) and node.value is None
                or isinstance(node, ast.Subscript)
                or isinstance(node, ast.Name)
                and isinstance(getattr(builtins, node.id, None), type))

    def visit(node) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and (
                is_type(node.left) or is_type(node.right)):
            found.append(node.lineno)
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns"):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    visit(child)

    visit(tree)
    return found


def test_no_module_evaluates_a_union_of_types():
    """setup.cfg promises Python 3.9, which has no ``float | None`` at run time (one
    type alias in tune/strategies.py broke ``import portgemm.tune`` there)."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        offenders += [f"{path.relative_to(PACKAGE)}:{line}" for line in evaluated_unions(tree)]
    assert not offenders, offenders
    assert evaluated_unions(ast.parse("Kept = list[tuple[int, float | None]]")) == [1]
    assert evaluated_unions(ast.parse("def f(x: int | None = None) -> str | None: ...")) == []
