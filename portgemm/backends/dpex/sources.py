"""The numba-dpex kernels as Python source text, one text per variant and parameter set.

A parameter such as ``tile_y`` must be a compile-time constant so the tile lives in
registers. Each parameter set therefore gets its own kernel *source*, generated here as
plain Python with the tile unrolled into scalar variables (the numba-dpex counterpart of
the OpenCL kernels' ``-D`` options); :mod:`portgemm.backends.dpex.run` compiles each text
once per process. A ``kernel_api.PrivateArray`` tile was measured 1.5x slower than the
unrolled scalars on the Intel CPU runtime.
"""

from __future__ import annotations

from ...errors import ParameterError
from ...families import get_variant
from ...families.base import Params, Variant

VARIANTS = ("naive", "tiled", "inreg", "local")


def get_dpex_variant(name: str) -> Variant:
    """The registered variant ``name`` (its parameters and checks) if dpex implements it."""
    if name not in VARIANTS:
        raise ParameterError(f"unknown dpex variant {name!r}; the dpex backend has "
                             f"{', '.join(VARIANTS)}")
    return get_variant(name)


def python_kernel_source(variant: str, params: Params | None = None) -> str:
    """The Python source of the numba-dpex kernel for a variant and its parameters (missing
    ones take the variant's defaults; checked as a call checks them, device limits aside)."""
    p = get_dpex_variant(variant).resolve(params)  # inreg's length defaults to 4, not 1
    if variant == "naive":
        return _NAIVE_SOURCE
    if variant == "local":
        return _local_source(p["wg_y"], p["wg_x"], p["tile_y"], p["tile_x"], p["tile_k"])
    return _register_tiled_source(p["tile_y"], p["tile_x"], p.get("length", 1))


_NAIVE_SOURCE = '''\
def gemm_naive(item, m, n, k, a, b, c):
    """One work-item per element of C; the nd-range covers (M, N) rounded up."""
    row = item.get_global_id(0)
    col = item.get_global_id(1)
    if row < m and col < n:
        acc = a.dtype.type(0)
        for p in range(k):
            acc += a[row, p] * b[p, col]
        c[row, col] = acc
'''


def _register_tiled_source(tile_y: int, tile_x: int, length: int) -> str:
    """tiled (length 1) and inreg: a tile_y x tile_x block of C per work-item in scalars.

    Each step loads ``length`` values of K per row of A and per column of B into scalars
    (the input registers), then adds their outer products. Rows and columns past the
    edge are clamped to the last one (valid memory, results never stored); K is walked
    in whole steps of ``length``, then one value at a time for the remainder.
    """
    ty, tx, ln = range(tile_y), range(tile_x), range(length)
    out = ["def gemm_tiled(item, m, n, k, a, b, c):",
           f'    """{tile_y}x{tile_x} register tile of C, K in steps of {length}."""',
           f"    row0 = item.get_global_id(0) * {tile_y}",
           f"    col0 = item.get_global_id(1) * {tile_x}",
           "    if row0 >= m or col0 >= n:",
           "        return",
           "    zero = a.dtype.type(0)"]
    out += [f"    r{y} = min(row0 + {y}, m - 1)" for y in ty]
    out += [f"    c{x} = min(col0 + {x}, n - 1)" for x in tx]
    out += ["    " + " = ".join(f"acc{y}_{x}" for x in tx) + " = zero" for y in ty]

    def step(indent: str, lengths: range, base: str) -> list[str]:
        lines = []
        for l in lengths:
            kk = f"{base} + {l}" if l else base
            lines += [f"{indent}a{y}_{l} = a[r{y}, {kk}]" for y in ty]
            lines += [f"{indent}b{l}_{x} = b[{kk}, c{x}]" for x in tx]
        for l in lengths:
            lines += [f"{indent}acc{y}_{x} += a{y}_{l} * b{l}_{x}" for y in ty for x in tx]
        return lines

    if length == 1:
        out.append("    for p in range(k):")
        out += step("        ", ln, "p")
    else:
        out.append(f"    k_whole = k - k % {length}")
        out.append(f"    for k0 in range(0, k_whole, {length}):")
        out += step("        ", ln, "k0")
        out.append("    for p in range(k_whole, k):")
        out += step("        ", range(1), "p")
    for y in ty:
        out.append(f"    if row0 + {y} < m:")
        for x in tx:
            out.append(f"        if col0 + {x} < n:")
            out.append(f"            c[row0 + {y}, col0 + {x}] = acc{y}_{x}")
    return "\n".join(out) + "\n"


def _local_source(wg_y: int, wg_x: int, tile_y: int, tile_x: int, tile_k: int) -> str:
    """local: K slabs of A and B copied into local memory, then register blocking.

    A work-group of wg_y x wg_x work-items computes a (wg_y*tile_y) x (wg_x*tile_x) tile
    of C. For each slab of tile_k values of K, all work-items copy the slab's piece of A
    and of B into the local accessors (zeros past the edges), wait at a group barrier,
    and accumulate their elements of C; a second barrier guards the next copy. A
    work-item owns rows ly + y*wg_y and columns lx + x*wg_x of the tile (strided), as in
    kernels_cl/local.cl, so neighbouring work-items touch neighbouring addresses.
    """
    tile_m, tile_n, wg = wg_y * tile_y, wg_x * tile_x, wg_y * wg_x
    ty, tx = range(tile_y), range(tile_x)
    out = ["def gemm_local(item, m, n, k, a, b, c, a_tile, b_tile):",
           f'    """{wg_y}x{wg_x} work-items, {tile_y}x{tile_x} of C each, slabs of '
           f'{tile_k}."""',
           "    ly = item.get_local_id(0)",
           "    lx = item.get_local_id(1)",
           f"    tid = ly * {wg_x} + lx",
           f"    m0 = (item.get_global_id(0) - ly) * {tile_y}",
           f"    n0 = (item.get_global_id(1) - lx) * {tile_x}",
           "    group = item.get_group()",
           "    zero = a.dtype.type(0)"]
    out += ["    " + " = ".join(f"acc{y}_{x}" for x in tx) + " = zero" for y in ty]
    out += [f"    for k0 in range(0, k, {tile_k}):",
            f"        for e in range(tid, {tile_m * tile_k}, {wg}):",
            f"            i = e // {tile_k}",
            f"            l = e % {tile_k}",
            "            if m0 + i < m and k0 + l < k:",
            "                a_tile[i, l] = a[m0 + i, k0 + l]",
            "            else:",
            "                a_tile[i, l] = zero",
            f"        for e in range(tid, {tile_k * tile_n}, {wg}):",
            f"            l = e // {tile_n}",
            f"            j = e % {tile_n}",
            "            if k0 + l < k and n0 + j < n:",
            "                b_tile[l, j] = b[k0 + l, n0 + j]",
            "            else:",
            "                b_tile[l, j] = zero",
            "        group_barrier(group)",
            f"        for l in range({tile_k}):"]
    out += [f"            a{y} = a_tile[ly + {y * wg_y}, l]" for y in ty]
    out += [f"            b{x} = b_tile[l, lx + {x * wg_x}]" for x in tx]
    out += [f"            acc{y}_{x} += a{y} * b{x}" for y in ty for x in tx]
    out.append("        group_barrier(group)")
    for y in ty:
        out.append(f"    if m0 + ly + {y * wg_y} < m:")
        for x in tx:
            out.append(f"        if n0 + lx + {x * wg_x} < n:")
            out.append(f"            c[m0 + ly + {y * wg_y}, n0 + lx + {x * wg_x}] = "
                       f"acc{y}_{x}")
    return "\n".join(out) + "\n"
