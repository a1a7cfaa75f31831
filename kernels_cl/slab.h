/* What the tensor-core kernels (mma.cl, wgmma.cl) share: where each value of a slab of A
 * and B goes (a_place, b_place), reading a slab from global memory into registers (load_a,
 * load_b), and float32's TF32 rounding. The including kernel defines WG (work-items),
 * BM, BN, BK (the tile and the slab's depth), LA = BM BK / WG and LB = BK BN / WG (values
 * of A and of B a work-item stages). */
#ifndef PORTGEMM_SLAB_H
#define PORTGEMM_SLAB_H

#include "common.h"

#if !USE_FP64
/* x rounded to TF32 (10 bits of mantissa), to nearest with ties away from zero, as PTX's
 * cvt.rna.tf32.f32 (from sm_80); non-finite values stay as they are */
inline float tf32(const float x)
{
#if PORTGEMM_PTX && PORTGEMM_SM >= 80
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return as_float(r);
#else
    return isfinite(x) ? as_float((as_uint(x) + 0x1000u) & 0xffffe000u) : x;
#endif
}

/* what the tensor cores read of a float32 given where a TF32 operand goes: its low 13
 * bits dropped (seen on an H100: bench/results/2026-11-26-h100-wgmma-issue). A kernel
 * that leaves a low part unrounded multiplies it this way where it has no tensor cores. */
inline float tf32_truncated(const float x)
{
    return as_float(as_uint(x) & 0xffffe000u);
}
#endif

/* where the value idx of a work-group's slab lies: A's as (m, k) within the slab, B's as
 * (k, n). Consecutive values take consecutive addresses: along k in a row-major A, along m
 * in a column-major one; along n in a row-major B, along k in a column-major one. */
inline int2 slab_place(const int idx, const int rows, const int cols, const int by_columns)
{
    return by_columns ? (int2)(idx % rows, idx / rows) : (int2)(idx / cols, idx % cols);
}
#define a_place(idx) slab_place(idx, BM, BK, A_COLMAJOR)
#define b_place(idx) slab_place(idx, BK, BN, B_COLMAJOR)

/* the slab of K from k0: the values of A this work-item stages, zeros past K; rows past M
 * read the last one (in bounds, never stored) */
inline void load_a(REAL ra[LA], const int k0, const int tid, const int m0, const int M,
                   const int K, __global const REAL *restrict A, const int lda)
{
    for (int e = 0; e < LA; ++e) {
        const int2 at = a_place(tid + e * WG);
        const int row = min(m0 + at.x, M - 1), k = k0 + at.y;
        ra[e] = k < K ? A_AT(row, k) : (REAL)0;
    }
}

/* the same for B: columns past N read the last one */
inline void load_b(REAL rb[LB], const int k0, const int tid, const int n0, const int N,
                   const int K, __global const REAL *restrict B, const int ldb)
{
    for (int e = 0; e < LB; ++e) {
        const int2 at = b_place(tid + e * WG);
        const int col = min(n0 + at.y, N - 1), k = k0 + at.x;
        rb[e] = k < K ? B_AT(k, col) : (REAL)0;
    }
}

#endif
