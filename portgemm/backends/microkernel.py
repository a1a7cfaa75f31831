"""The register tile of the threaded host GEMM, written as LLVM vector code.

``tile_update`` adds to an MR x NR tile of C the product of a packed panel of A (MR values
a step of K) and a packed panel of B (NR values a step): each step broadcasts the MR
values of A, loads the NR / LANES vectors of B and issues MR * NR / LANES fused
multiply-adds into accumulators that stay in registers for the whole panel, the structure
of BLIS's micro-kernels. numba's loop vectoriser only turns a sum along K into a vector
(a 4 x 6 tile of such sums ran at 75-110 GFLOPS a core on a 2-core Xeon whose FMA peak is
175); keeping a 2-D tile in registers needs the vectors spelled out, which numba allows
through an ``@intrinsic`` that builds the loop with llvmlite.

The tile's shape comes from the host's vector registers (numba compiles for the host
CPU): MR * NR / LANES accumulators, NR / LANES vectors of B and one broadcast must fit the
register file.
"""

from __future__ import annotations

import platform

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, register_jitable


def vector_registers() -> tuple[int, int]:
    """(bytes a vector register holds, how many there are) on the host CPU."""
    try:
        from llvmlite import binding

        features = binding.get_host_cpu_features()
    except (ImportError, RuntimeError):
        features = {}
    if features.get("avx512f"):
        return 64, 32
    if features.get("avx"):
        return 32, 16
    if platform.machine().lower() in ("aarch64", "arm64"):
        return 16, 32  # NEON
    return 16, 16      # SSE


VECTOR_BYTES, REGISTERS = vector_registers()
# (rows of A, vectors of B) of the tile: 8 x 3 uses 24 + 3 + 1 of 32 registers (BLIS's
# Skylake-X kernels are of this size), 6 x 2 uses 12 + 2 + 1 of 16 (its Haswell kernel).
MR, NV = (8, 3) if REGISTERS >= 32 else (6, 2)


@register_jitable
def lanes(itemsize: int) -> int:
    """Values of one vector register."""
    return max(1, VECTOR_BYTES // itemsize)


def _vector_call(builder, name: str, vector: ir.VectorType, operands: int):
    """LLVM's intrinsic ``name`` (llvm.fma, ...) for this vector type."""
    fnty = ir.FunctionType(vector, [vector] * operands)
    suffix = f"v{vector.count}{'f32' if vector.element == ir.FloatType() else 'f64'}"
    return cgutils.get_or_insert_function(builder.module, fnty, f"{name}.{suffix}")


def tile_kernel(rows: int, vectors: int):
    """The intrinsic for a tile of ``rows`` x ``vectors`` vectors of B (MR x NV)."""
    def tile_update(typingctx, ap, a0, bp, b0, kc, c, c0, ldc):
        return _typed(rows, vectors, ap, a0, bp, b0, kc, c, c0, ldc)

    tile_update.__name__ = f"tile_update_{rows}x{vectors}"
    return intrinsic(tile_update)


def _typed(rows, vectors, ap, a0, bp, b0, kc, c, c0, ldc):
    """c[c0 + i * ldc + j] += sum over k < kc of ap[a0 + k * MR + i] * bp[b0 + k * NR + j]
    for i < MR, j < NR = NV * LANES (MR = rows, NV = vectors): the arrays' flat data,
    C-contiguous, of one dtype. Nothing is bounds-checked: the caller keeps every index
    inside its array."""
    if not all(isinstance(x, types.Array) and x.layout == "C" for x in (ap, bp, c)):
        return None
    if not ap.dtype == bp.dtype == c.dtype or ap.dtype not in (types.float32, types.float64):
        return None
    index = types.intp
    signature = types.void(ap, index, bp, index, index, c, index, index)

    def codegen(context, builder, sig, args):
        a_arr, a_off, b_arr, b_off, steps, c_arr, c_off, ld = args
        value = context.get_value_type(sig.args[0].dtype)
        width = lanes(context.get_abi_sizeof(value))
        vector = ir.VectorType(value, width)
        i64 = ir.IntType(64)

        def at(array_type, array, offset):
            data = context.make_array(array_type)(context, builder, array).data
            return builder.gep(data, [offset])

        def const(n):
            return ir.Constant(i64, n)

        def vector_at(pointer, offset):
            return builder.bitcast(builder.gep(pointer, [const(offset)]), vector.as_pointer())

        pa = at(sig.args[0], a_arr, a_off)
        pb = at(sig.args[2], b_arr, b_off)
        pc = at(sig.args[5], c_arr, c_off)
        fma = _vector_call(builder, "llvm.fma", vector, 3)
        zero = ir.Constant(vector, None)
        splat = ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width)
        entry = builder.block
        loop = builder.append_basic_block("tile.steps")
        done = builder.append_basic_block("tile.store")
        builder.cbranch(builder.icmp_signed(">", steps, const(0)), loop, done)

        # one step of K: the accumulators are phis carried around the loop
        builder.position_at_end(loop)
        k = builder.phi(i64)
        sums = [builder.phi(vector) for _ in range(rows * vectors)]
        b_row = builder.gep(pb, [builder.mul(k, const(vectors * width))])
        b_vectors = [builder.load(vector_at(b_row, v * width), align=1) for v in range(vectors)]
        a_step = builder.gep(pa, [builder.mul(k, const(rows))])
        added = []
        for i in range(rows):
            a_value = builder.load(builder.gep(a_step, [const(i)]))
            a_vector = builder.shuffle_vector(
                builder.insert_element(ir.Constant(vector, ir.Undefined), a_value,
                                       ir.Constant(ir.IntType(32), 0)),
                ir.Constant(vector, ir.Undefined), splat)
            added += [builder.call(fma, [a_vector, b_vectors[v], sums[i * vectors + v]])
                      for v in range(vectors)]
        next_k = builder.add(k, const(1))
        k.add_incoming(const(0), entry)
        k.add_incoming(next_k, loop)
        for phi, new in zip(sums, added):
            phi.add_incoming(zero, entry)
            phi.add_incoming(new, loop)
        builder.cbranch(builder.icmp_signed("<", next_k, steps), loop, done)

        # C += the tile, row by row (ld apart)
        builder.position_at_end(done)
        totals = [builder.phi(vector) for _ in added]
        for total, new in zip(totals, added):
            total.add_incoming(zero, entry)
            total.add_incoming(new, loop)
        for i in range(rows):
            row = builder.gep(pc, [builder.mul(const(i), ld)])
            for v in range(vectors):
                pointer = vector_at(row, v * width)
                builder.store(builder.fadd(builder.load(pointer, align=1), totals[i * vectors + v]),
                              pointer, align=1)
        return context.get_dummy_value()

    return signature, codegen


tile_update = tile_kernel(MR, NV)
