/* mma: GEMM on NVIDIA's tensor cores, reached through PTX's mma.sync.aligned.m16n8k8 in
 * inline assembly (OpenCL has no other way to them):
 *   float64: .f64, the instruction cuBLAS's DGEMM is built on (compute capability 9.0);
 *   float32: .tf32 three times, "3xTF32": each value x is split into x_hi = tf32(x) and
 *     x_lo = tf32(x - x_hi) as it is staged, and a b = a_lo b_hi + a_hi b_lo + a_hi b_hi,
 *     each step's sum added to float32 accumulators (mma_steps says why); the dropped
 *     a_lo b_lo is below float32's rounding, so the error is a float32 GEMM's in norm
 *     (compute capability 8.0). Not IEEE to the last case: the parts keep 22 of x's 24
 *     bits (X * I is not X to the last bit), and an infinite input gives NaN where it
 *     meets a value whose low part is zero (docs/known-issues.md).
 * Elsewhere -- another device or an older NVIDIA GPU -- the same fragments (and in float32
 * the same split) are multiplied with plain multiply-adds through local memory, so every
 * CPU runtime runs (and the tests check) the kernel's tiling, fragment layouts and split.
 *
 * A work-group of WM x WN warps (32 work-items each) computes a BM x BN tile of C,
 * BM = 16 MT WM, BN = 8 NT WN: each warp an (16 MT) x (8 NT) block, as MT x NT mma tiles of
 * 16 x 8. K goes in slabs of BK = 8 KS: the slab's BM x BK piece of A and BK x BN piece of
 * B are staged in local memory, k-major (As[p][k][m], Bs[p][k][n], part p): the next slab
 * is read into registers while this one is multiplied, then stored into the other of two
 * buffers (one barrier a slab) or, with BUFFERS = 1, into the same one between two
 * barriers (half the local memory, for deeper slabs). With ASYNC_STAGES (float64 only:
 * float32 splits its values as they are staged) the slabs go straight from global to
 * local memory instead, ASYNC_STAGES tiles deep, requested ASYNC_STAGES - 1 slabs ahead
 * (async_copy.h: cp.async on NVIDIA), so that no work-item waits for its loads before it
 * multiplies, as the register path does once a slab.
 *
 * A warp's fragments (lane = 4 g + t; the layouts PTX defines for both types, checked on
 * an H200 by bench/gpu/mma_probe.py):
 *   A, 16 x 8: value i of a lane is row g + 8 (i % 2), column t + 4 (i / 2)
 *   B, 8 x 8:  value i is row t + 4 i, column g
 *   C, 16 x 8: value i is row g + 8 (i / 2), column 2 t + i % 2
 * In float64 (A_PAIRS), within each 16 columns of As (rows of A), row r of A lies at
 * 2 (r % 8) + r / 8 (a_col): the rows g and g + 8 of a lane's A fragment lie side by side,
 * and a lane reads its four values of A in two 16-byte reads, not four 8-byte ones. On an
 * H100 that was 2.5% faster in float64; in float32, whose pairs are 8 bytes, 4.5% slower,
 * so float32 keeps A's rows in order (bench/results/2026-11-26-h100-mma-async/10-pairs).
 * With rows of As and Bs PAD values longer than the tile, a warp's fragment reads are free
 * of bank conflicts where the row stride is 4 mod 16 doubles (PAD = 4) or 8 mod 32 floats
 * (PAD = 8).
 *
 * -D WM, WN   warps of a work-group along M and N
 * -D MT, NT   mma tiles of a warp along M (16 rows each) and N (8 columns each)
 * -D KS       steps of 8 of K in one slab (BK = 8 KS)
 * -D PAD      extra values at the end of each row of As and Bs
 * -D SUMS     steps of 8 of K whose products the tensor cores sum before a float32 add
 *             (float32; divides KS)
 * -D BUFFERS  local tiles, 2 or 1 (the register path)
 * -D ASYNC_STAGES  0: the register path; 2, 3 or 4: asynchronous copies, that many tiles
 * -D B_BULK   1: with ASYNC_STAGES, B's slabs inside C by bulk copies (async_copy.h), one
 *             work-item a slab (on NVIDIA from sm_90 the TMA engine; older NVIDIA GPUs
 *             keep the pieces; other devices run the same requests as plain copies)
 * -D KSPLIT   split-K: kernels_cl/splitk.h, in runs of whole BK slabs (a C of few tiles)
 * Edges (any M, N, K >= 1): steps past K are zeros. Rows and columns past M or N are
 * never stored: the register path reads the last one there (in bounds), the asynchronous
 * copies write zeros. Stores of C are guarded, a lane's two neighbouring values of a row
 * one store where C allows (store_pairs.h).
 * NDRange (SYCL order): (ceil(M / BM), ceil(N / BN) * WG) in work-groups of (1, WG),
 * WG = 32 WM WN; with KSPLIT > 1, (KSPLIT, ...) in groups of (1, 1, WG).
 */

#ifndef WM
#define WM 2        // warps along M
#endif
#ifndef WN
#define WN 2        // warps along N
#endif
#ifndef MT
#define MT 2        // mma tiles (16 rows each) of a warp along M
#endif
#ifndef NT
#define NT 4        // mma tiles (8 columns each) of a warp along N
#endif
#ifndef KS
#define KS 1        // steps of 8 of K in one slab
#endif
#ifndef PAD
#define PAD 8       // values past each row of the local tiles (bank spread)
#endif
#ifndef SUMS
#define SUMS 1      // steps of 8 of K summed before acc takes them (divides KS)
#endif
#ifndef BUFFERS
#define BUFFERS 2   // local tiles: 2 (one barrier a slab) or 1 (two; half the memory)
#endif
#ifndef ASYNC_STAGES
#define ASYNC_STAGES 0  // 0: slabs through registers; 2-4: asynchronous copies (float64)
#endif
#ifndef KSPLIT
#define KSPLIT 1    // split-K: K cut into KSPLIT runs, one per work-group layer
#endif
#ifndef B_BULK
#define B_BULK 0    // B's slabs by bulk copies (with ASYNC_STAGES)
#endif
#include "splitk.h"
#include "store_pairs.h"

#define WG (32 * WM * WN)
#define BM (16 * MT * WM)
#define BN (8 * NT * WN)
#define BK (8 * KS)
#define LA (BM * BK / WG)   /* values of A a work-item stages per slab */
#define LB (BK * BN / WG)   /* values of B */
/* load_a, load_b, tf32 (after the tile they read) */
#include "slab.h"
/* the tensor cores: m16n8k8.f64 from sm_90, m16n8k8.tf32 from sm_80 */
#define MMA_PTX (PORTGEMM_PTX && (USE_FP64 ? PORTGEMM_SM >= 90 : PORTGEMM_SM >= 80))
#define SPLIT_TF32 (!USE_FP64)  /* float32 runs 3xTF32 */
#define PARTS (SPLIT_TF32 ? 2 : 1)  /* values staged an element: float32's two TF32 parts */
#define TILES (ASYNC_STAGES ? ASYNC_STAGES : BUFFERS)  /* slabs in local memory at once */
#define A_PAIRS USE_FP64  /* a lane reads its values of A in pairs (the text at the top) */
#if ASYNC_STAGES
#if SPLIT_TF32
#error "ASYNC_STAGES needs float64: float32 splits its values as they are staged"
#endif
#include "async_copy.h"
#endif

#if MMA_PTX
/* d = a b + d for one 16 x 8 x 8 tile, on the tensor cores */
inline void mma_tile(REAL d[4], const REAL a[4], const REAL b[2])
{
#if USE_FP64
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]),
          "d"(d[0]), "d"(d[1]), "d"(d[2]), "d"(d[3]));
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(as_uint(a[0])), "r"(as_uint(a[1])), "r"(as_uint(a[2])), "r"(as_uint(a[3])),
          "r"(as_uint(b[0])), "r"(as_uint(b[1])), "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
#endif
}
#endif

/* acc[mi][ni] = a[mi] b[ni] + acc[mi][ni] for a warp's MT x NT tiles of 16 x 8 x 8 */
inline void mma_tiles(REAL acc[MT][NT][4], const REAL a[MT][4], const REAL b[NT][2],
                      __local REAL *scratch, const int g, const int t)
{
#if MMA_PTX
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            mma_tile(acc[mi][ni], a[mi], b[ni]);
#else
    /* the warp's fragments into its scratch (MT tiles 16 x 8 of A, then NT tiles 8 x 8
     * of B), each lane's values of D out of them: what the instruction computes, in
     * plain arithmetic, with one exchange (two barriers) a step */
    __local REAL *sa = scratch, *sb = scratch + MT * 16 * 8;
    for (int mi = 0; mi < MT; ++mi)
        for (int i = 0; i < 4; ++i)
            sa[mi * 128 + (g + 8 * (i % 2)) * 8 + t + 4 * (i / 2)] = a[mi][i];
    for (int ni = 0; ni < NT; ++ni)
        for (int i = 0; i < 2; ++i)
            sb[ni * 64 + (t + 4 * i) * 8 + g] = b[ni][i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            for (int i = 0; i < 4; ++i) {
                const int row = g + 8 * (i / 2), col = 2 * t + i % 2;
                REAL s = acc[mi][ni][i];
                for (int k = 0; k < 8; ++k)
                    s = MAD(sa[mi * 128 + row * 8 + k], sb[ni * 64 + k * 8 + col], s);
                acc[mi][ni][i] = s;
            }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

/* SUMS steps of 8 of K; a[s][p], b[s][p] are step s's fragments, part p (float32:
 * 0 the high TF32 part, 1 the low). float64: acc += a b on the tensor cores. float32: of
 * each step three products, the small terms first, summed from zero over the SUMS steps
 * and then added to acc with float32's rounding: the tensor cores truncate what they add
 * into C, and K / 8 truncations of a growing acc made the error 26 times cuBLAS SGEMM's
 * at 4096 (bench/results/2026-11-22-h200-sgemm-3xtf32/). On the tensor cores tile by
 * tile, which keeps 4 registers of partial sums live, not 4 MT NT. */
inline void mma_steps(REAL acc[MT][NT][4], const REAL a[SUMS][PARTS][MT][4],
                      const REAL b[SUMS][PARTS][NT][2], __local REAL *scratch,
                      const int g, const int t)
{
#if !SPLIT_TF32
    for (int s = 0; s < SUMS; ++s)
        mma_tiles(acc, a[s][0], b[s][0], scratch, g, t);
#elif MMA_PTX
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni) {
            float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int s = 0; s < SUMS; ++s) {
                mma_tile(part, a[s][1][mi], b[s][0][ni]);
                mma_tile(part, a[s][0][mi], b[s][1][ni]);
                mma_tile(part, a[s][0][mi], b[s][0][ni]);
            }
            for (int i = 0; i < 4; ++i)
                acc[mi][ni][i] += part[i];
        }
#else
    float part[MT][NT][4];
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            for (int i = 0; i < 4; ++i)
                part[mi][ni][i] = 0.0f;
    for (int s = 0; s < SUMS; ++s) {
        mma_tiles(part, a[s][1], b[s][0], scratch, g, t);
        mma_tiles(part, a[s][0], b[s][1], scratch, g, t);
        mma_tiles(part, a[s][0], b[s][0], scratch, g, t);
    }
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            for (int i = 0; i < 4; ++i)
                acc[mi][ni][i] += part[mi][ni][i];
#endif
}

/* tile[.][k][j] = v: float32 stores its high and low TF32 parts (split once here, not
 * in every warp that reads the value) */
#if SPLIT_TF32
#define PUT(tile, k, j, v) do { const float hi_ = tf32(v); tile[0][k][j] = hi_; \
                                tile[1][k][j] = tf32((v) - hi_); } while (0)
#else
#define PUT(tile, k, j, v) (tile[0][k][j] = (v))
#endif

/* the column of As that row mm of the slab of A goes to (the text at the top says why) */
inline int a_col(const int mm)
{
    return A_PAIRS ? (mm & ~15) | (mm & 7) << 1 | (mm >> 3 & 1) : mm;
}

inline void store_slab(const REAL ra[LA], const REAL rb[LB], const int tid,
                       __local REAL As[PARTS][BK][BM + PAD],
                       __local REAL Bs[PARTS][BK][BN + PAD])
{
    for (int e = 0; e < LA; ++e) {
        const int2 at = a_place(tid + e * WG);
        PUT(As, at.y, a_col(at.x), ra[e]);
    }
    for (int e = 0; e < LB; ++e) {
        const int2 at = b_place(tid + e * WG);
        PUT(Bs, at.x, at.y, rb[e]);
    }
}

#if ASYNC_STAGES
/* A row-major B's rows go in pieces of two values (16 bytes) along n, each a copy where B
 * is aligned (b_aligned: ldb and B's address allow it) and the piece inside N */
#define B_PIECES (!B_COLMAJOR && PAD % 2 == 0 && (BK * BN / 2) % WG == 0)
/* B's rows whole by bulk copies, in a tile inside C (whose B is aligned: B_PIECES) and a
 * slab inside K; an edge tile and the last slab past K keep the pieces and their zeros */
#define B_BULK_ON (B_BULK && B_PIECES && (!PORTGEMM_PTX || PORTGEMM_SM >= 90))

/* Requests the slab of K from k0 straight into the local tiles, each value where
 * store_slab puts it; in flight until waited for. Past K the copies write zeros and read
 * nothing, and in an edge tile (``edge``: a constant where it is inlined) past M and N
 * too: its columns past N, each read from the last column, had its work-items copy one
 * address many times over (on an H100 8192 x 130 x 8192 ran 1.5x slower in 64 x 64 tiles
 * than 8192 x 170 x 8192, the same grid). A tile inside C tests only K: the bounds'
 * tests cost 5% at 4096^3 (bench/results/2026-11-26-h100-edge-zeros). */
inline void request_slab(const bool edge, const int k0, const int tid, const int m0,
                         const int n0, const int M, const int N, const int K,
                         __global const REAL *restrict A, const int lda,
                         __global const REAL *restrict B, const int ldb, const int b_aligned,
                         __local REAL As[PARTS][BK][BM + PAD],
                         __local REAL Bs[PARTS][BK][BN + PAD], __local ulong *bar)
{
    for (int e = 0; e < LA; ++e) {
        const int2 at = a_place(tid + e * WG);
        const int row = m0 + at.x, k = k0 + at.y;
        CP_ASYNC_ONE_OR_ZERO(&As[0][at.y][a_col(at.x)], &A_AT(min(row, M - 1), min(k, K - 1)),
                             k < K && (!edge || row < M));
    }
#if B_BULK_ON
    if (!edge && k0 + BK <= K) {
        if (tid == 0) {
            BULK_EXPECT(bar, BK * BN * (int)sizeof(REAL));
            for (int r = 0; r < BK; ++r)
                BULK_ROW(&Bs[0][r][0], B + (long)(k0 + r) * ldb + n0, BN * (int)sizeof(REAL),
                         bar);
        }
        return;
    }
    if (tid == 0)
        BULK_ARRIVE(bar);  /* the stage's phase, its values by the pieces below */
#endif
#if B_PIECES
    for (int e = 0; e < LB / 2; ++e) {
        const int2 at = b_place(2 * (tid + e * WG));  /* the piece's first value */
        const int k = k0 + at.x, col = n0 + at.y;
        __local REAL *dst = &Bs[0][at.x][at.y];
        if (!edge || (b_aligned && col + 1 != N)) {  /* a whole piece, or zeros past N */
            const int from = edge && col >= N ? 0 : col;  /* zeros: any aligned place */
            const bool keep = k < K && (!edge || col < N);
            CP_ASYNC_16_OR_ZERO(dst, B + (long)min(k, K - 1) * ldb + from, keep);
        } else {
            for (int j = 0; j < 2; ++j)
                CP_ASYNC_ONE_OR_ZERO(dst + j, &B_AT(min(k, K - 1), min(col + j, N - 1)),
                                     k < K && col + j < N);
        }
    }
#else
    for (int e = 0; e < LB; ++e) {
        const int2 at = b_place(tid + e * WG);
        const int k = k0 + at.x, col = n0 + at.y;
        CP_ASYNC_ONE_OR_ZERO(&Bs[0][at.x][at.y], &B_AT(min(k, K - 1), min(col, N - 1)),
                             k < K && (!edge || col < N));
    }
#endif
}
#endif

/* acc += the slab in the local tiles As, Bs: each warp reads its fragments, SUMS steps of
 * 8 at a time, and multiplies them */
inline void multiply_slab(REAL acc[MT][NT][4], __local const REAL As[PARTS][BK][BM + PAD],
                          __local const REAL Bs[PARTS][BK][BN + PAD], __local REAL *scratch,
                          const int wm, const int wn, const int g, const int t)
{
    for (int ks = 0; ks < KS; ks += SUMS) {
        REAL a[SUMS][PARTS][MT][4], b[SUMS][PARTS][NT][2];
        for (int s = 0; s < SUMS; ++s)
            for (int p = 0; p < PARTS; ++p) {
                const int k = (ks + s) * 8 + t;
                for (int mi = 0; mi < MT; ++mi) {
#if A_PAIRS
                    for (int h = 0; h < 2; ++h) {  /* column t + 4 h: rows g and g + 8 */
                        const REAL2 pair = *(__local const REAL2 *)
                            &As[p][k + 4 * h][wm + mi * 16 + 2 * g];
                        a[s][p][mi][2 * h] = pair.x;
                        a[s][p][mi][2 * h + 1] = pair.y;
                    }
#else
                    for (int i = 0; i < 4; ++i)
                        a[s][p][mi][i] = As[p][k + 4 * (i / 2)][wm + mi * 16 + g + 8 * (i % 2)];
#endif
                }
                for (int ni = 0; ni < NT; ++ni)
                    for (int i = 0; i < 2; ++i)
                        b[s][p][ni][i] = Bs[p][k + 4 * i][wn + ni * 8 + g];
            }
        mma_steps(acc, a, b, scratch, g, t);
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void gemm(SPLIT_GEMM_ARGS)
{
    SPLIT_K(BK);
    /* 16-byte aligned: pairs are read from As, 16-byte copies land in Bs */
    __local REAL As[TILES][PARTS][BK][BM + PAD] __attribute__((aligned(16)));
    __local REAL Bs[TILES][PARTS][BK][BN + PAD] __attribute__((aligned(16)));
#if MMA_PTX
    __local REAL *scratch = 0;
#else
    __local REAL scratch_all[WM * WN][(MT * 16 + NT * 8) * 8];
#endif
    const int tid = get_local_id(0);
    const int lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wm = (warp / WN) * 16 * MT, wn = (warp % WN) * 8 * NT;  /* warp's block */
    const int m0 = get_group_id(1) * BM, n0 = get_group_id(0) * BN;
#if !MMA_PTX
    __local REAL *scratch = scratch_all[warp];
#endif

    REAL acc[MT][NT][4];
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            for (int i = 0; i < 4; ++i)
                acc[mi][ni][i] = 0;

    const int slabs = (K + BK - 1) / BK;
#if ASYNC_STAGES
    const int b_aligned = ldb % 2 == 0 && (size_t)B % 16 == 0;
    /* slab s in tile s % ASYNC_STAGES, requested ASYNC_STAGES - 1 ahead (async_copy.h) */
#if B_BULK_ON
    __local ulong bars[ASYNC_STAGES];  /* a stage's barrier object (async_copy.h) */
    BULK_INIT(tid, bars, ASYNC_STAGES);
    barrier(CLK_LOCAL_MEM_FENCE);
#define MMA_LANDED(s) BULK_LANDED(&bars[(s) % ASYNC_STAGES], ((s) / ASYNC_STAGES) & 1)
#define MMA_BAR(tile) (&bars[tile])
#else
#define MMA_LANDED(s)
#define MMA_BAR(tile) ((__local ulong *)0)
#endif
#define MMA_REQUEST(edge, s, tile) request_slab(edge, (s) * BK, tid, m0, n0, M, N, K, A, lda, \
                                                B, ldb, b_aligned, As[tile], Bs[tile],    \
                                                MMA_BAR(tile))
#define MMA_REQUEST_INSIDE(s, tile) MMA_REQUEST(false, s, tile)
#define MMA_REQUEST_EDGE(s, tile) MMA_REQUEST(true, s, tile)
#define MMA_MULTIPLY(tile) multiply_slab(acc, As[tile], Bs[tile], scratch, wm, wn, g, t)
    /* the pipeline built twice, for a tile inside C (every piece of B whole) and for an
     * edge tile */
#if B_PIECES
    const int inside = m0 + BM <= M && n0 + BN <= N && b_aligned;
#else
    const int inside = m0 + BM <= M && n0 + BN <= N;
#endif
    if (inside) {
        CP_ASYNC_PIPELINE(slabs, MMA_REQUEST_INSIDE, MMA_MULTIPLY, MMA_LANDED);
    } else {
        CP_ASYNC_PIPELINE(slabs, MMA_REQUEST_EDGE, MMA_MULTIPLY, MMA_LANDED);
    }
#else
    REAL ra[LA], rb[LB];
    load_a(ra, 0, tid, m0, M, K, A, lda);
    load_b(rb, 0, tid, n0, N, K, B, ldb);
    store_slab(ra, rb, tid, As[0], Bs[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int slab = 0; slab < slabs; ++slab) {
        const int buf = BUFFERS == 2 ? slab & 1 : 0;
        if (slab + 1 < slabs) {
            load_a(ra, (slab + 1) * BK, tid, m0, M, K, A, lda);
            load_b(rb, (slab + 1) * BK, tid, n0, N, K, B, ldb);
        }
        multiply_slab(acc, As[buf], Bs[buf], scratch, wm, wn, g, t);
        if (slab + 1 < slabs) {
            if (BUFFERS == 1)  /* every warp done with the tiles before they are overwritten */
                barrier(CLK_LOCAL_MEM_FENCE);
            store_slab(ra, rb, tid, As[BUFFERS - 1 - buf], Bs[BUFFERS - 1 - buf]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif

    const int fit = pairs_fit(C, ldc);
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            for (int i = 0; i < 4; i += 2)  /* values i and i + 1: columns 2 t and 2 t + 1 */
                store_pair(C, ldc, M, N, m0 + wm + mi * 16 + g + 8 * (i / 2),
                           n0 + wn + ni * 8 + 2 * t, acc[mi][ni][i], acc[mi][ni][i + 1], fit);
}
