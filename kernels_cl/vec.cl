/* vec: register blocking with explicit vectors: each work-item computes TILE_Y rows by
 * TILE_X columns of C as TILE_Y x (TILE_X / VW) vectors of VW elements, adding one rank-1
 * update per k: a row of B read as vectors, an element of A broadcast over a vector.
 *
 * For CPU compilers that vectorise what the kernel says rather than across work-items
 * (PoCL): the SIMD width is in the kernel's own types, and there is no local memory and no
 * barrier, which such compilers turn into loops over the work-items that spill private
 * values at every barrier. A work-item reads its rows of A and a panel of B straight
 * from memory (the caches serve the re-reads of the work-items that share them).
 * PACKED 1: B comes packed in panels of TILE_X columns, K-major (kernels_cl/pack.cl),
 * passed with ldb = TILE_X: a work-item's steps of B follow one another instead of lying
 * ldb apart (PoCL at 2048: 145-173 against 84-106 GFLOPS).
 * Edges (any M, N, K): rows past M read the last row and are not stored; a work-item
 * whose columns pass N (or a column-major B, not contiguous along N) reads B element by
 * element with the column clamped (packed, the panel's zeros), and stores only the
 * columns inside C.
 * KSPLIT > 1 (splitk.h): layers of work-items along K, each writing its partial product
 * into a slice of the workspace, summed in order afterwards: a work-item adds its
 * products one after another, so a deep K loses float32 accuracy (PoCL, 64 x 64 x 2^18:
 * 9.3e-6 whole, 8.4e-7 in runs of 2048).
 * NDRange: (KSPLIT, ceil(M / TILE_Y), ceil(N / TILE_X)) rounded up to the work-group.
 */
#ifndef PACKED
#define PACKED 0    // 1: B packed in panels of TILE_X columns (ldb = TILE_X)
#endif
#define SPLIT_B_COLMAJOR (B_COLMAJOR && !PACKED)  /* a packed B is K-major */
#include "splitk.h"

#ifndef TILE_Y
#define TILE_Y 8    // rows of C per work-item, >= 1
#endif
#ifndef TILE_X
#define TILE_X 16   // columns of C per work-item, a multiple of VW
#endif
#ifndef VW
#define VW 16       // elements per vector: 1, 2, 4, 8 or 16
#endif
#ifndef KSPLIT
#define KSPLIT 1    // layers of work-items along K (splitk.h)
#endif

#if VW == 1
#define REALV REAL
#define VLOADV(p) (*(p))
#define VSTOREV(v, p) (*(p) = (v))
#else
#define REALV PG_CAT(REAL, VW)
/* A vector built element by element, which the compiler merges into one unaligned vector
 * load: PoCL's vloadN is an out-of-line call, and every zmm register is the caller's to
 * save, so each call spilled and reloaded all of the accumulators (3x slower). */
#define VEC_ELEMS2(p) (p)[0], (p)[1]
#define VEC_ELEMS4(p) VEC_ELEMS2(p), VEC_ELEMS2((p) + 2)
#define VEC_ELEMS8(p) VEC_ELEMS4(p), VEC_ELEMS4((p) + 4)
#define VEC_ELEMS16(p) VEC_ELEMS8(p), VEC_ELEMS8((p) + 8)
#define VLOADV(p) ((REALV)(PG_CAT(VEC_ELEMS, VW)(p)))
#define VSTOREV(v, p) PG_CAT(vstore, VW)(v, 0, p)
#endif
#define RUNS (TILE_X / VW)

/* acc += the rank-1 update of step k, B's run r read by LOAD_B(k, r). */
#define VEC_STEP(k, LOAD_B)                                                             \
    {                                                                                   \
        REALV b[RUNS];                                                                  \
        _Pragma("unroll")                                                               \
        for (int r = 0; r < RUNS; ++r)                                                  \
            b[r] = LOAD_B(k, r);                                                        \
        _Pragma("unroll")                                                               \
        for (int y = 0; y < TILE_Y; ++y) {                                              \
            const REALV a = (REALV)(arow[y][A_COLMAJOR ? (k) * lda : (k)]);              \
            _Pragma("unroll")                                                           \
            for (int r = 0; r < RUNS; ++r)                                              \
                acc[y][r] = MAD(a, b[r], acc[y][r]);                                    \
        }                                                                               \
    }
#define B_RUN(k, r) VLOADV(brow + (r) * VW)
#define B_GATHERED(k, r) vec_gather(B, ldb, k, col0 + (r) * VW, N)

/* VW elements of row k of B from column c on, each through B_AT, columns past N
 * clamped to the last one. */
inline REALV vec_gather(__global const REAL *restrict B, const int ldb, const int k,
                        const int c, const int N)
{
    REAL t[VW];
    #pragma unroll
    for (int v = 0; v < VW; ++v)
        t[v] = B_AT(k, min(c + v, N - 1));
    return VLOADV(t);
}

__kernel void gemm(SPLIT_GEMM_ARGS)
{
    SPLIT_K(1);
    const int row0 = get_global_id(1) * TILE_Y;
    const int col0 = get_global_id(0) * TILE_X;
    if (row0 >= M || col0 >= N)
        return;
    /* where each of the tile's rows of A starts (rows past M: the last one) */
    __global const REAL *arow[TILE_Y];
    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y)
        arow[y] = A + (A_COLMAJOR ? min(row0 + y, M - 1) : min(row0 + y, M - 1) * lda);
    REALV acc[TILE_Y][RUNS];
    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y)
        #pragma unroll
        for (int r = 0; r < RUNS; ++r)
            acc[y][r] = (REALV)(0);

    if (PACKED || (!B_COLMAJOR && col0 + TILE_X <= N)) {
        /* packed: the work-item's panel (K_all deep; SPLIT_K moved B to this layer's
         * run of it), ldb = TILE_X */
        __global const REAL *brow =
            B + (PACKED ? (long)(col0 / TILE_X) * K_all * TILE_X : col0);
        for (int k = 0; k < K; ++k, brow += ldb)
            VEC_STEP(k, B_RUN)
    } else {
        for (int k = 0; k < K; ++k)
            VEC_STEP(k, B_GATHERED)
    }

    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y) {
        if (row0 + y < M) {
            __global REAL *c = C + (row0 + y) * ldc + col0;
            #pragma unroll
            for (int r = 0; r < RUNS; ++r) {
                if (col0 + (r + 1) * VW <= N) {
                    VSTOREV(acc[y][r], c + r * VW);
                } else {
                    REAL t[VW];
                    VSTOREV(acc[y][r], t);
                    for (int v = 0; v < VW && col0 + r * VW + v < N; ++v)
                        c[r * VW + v] = t[v];
                }
            }
        }
    }
}
