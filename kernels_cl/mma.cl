/* mma: float64 GEMM on NVIDIA's FP64 tensor cores, reached through PTX's
 * mma.sync.aligned.m16n8k8.row.col.f64 in inline assembly (the instruction cuBLAS's DGEMM
 * is built on; OpenCL has no other way to it; the shape needs compute capability 9.0).
 * Elsewhere -- another device, an older NVIDIA GPU, or float32 --
 * the same fragments are multiplied with plain multiply-adds through local memory, so
 * every CPU runtime runs (and the tests check) the kernel's tiling and fragment layouts.
 *
 * A work-group of WM x WN warps (32 work-items each) computes a BM x BN tile of C,
 * BM = 16 MT WM, BN = 8 NT WN: each warp an (16 MT) x (8 NT) block, as MT x NT mma tiles of
 * 16 x 8. K goes in slabs of BK = 8 KS: the slab's BM x BK piece of A and BK x BN piece of
 * B are staged in local memory, k-major (As[k][m], Bs[k][n]), double-buffered: the next
 * slab is read into registers while this one is multiplied, then stored into the other
 * buffer; one barrier a slab.
 *
 * A warp's fragments (lane = 4 g + t; the layouts PTX defines, checked on an H200 by
 * bench/gpu/mma_probe.py):
 *   A, 16 x 8: value i of a lane is row g + 8 (i % 2), column t + 4 (i / 2)
 *   B, 8 x 8:  value i is row t + 4 i, column g
 *   C, 16 x 8: value i is row g + 8 (i / 2), column 2 t + i % 2
 * With rows of As and Bs PAD values longer than the tile (PAD = 8: a row stride of 8 mod
 * 16 doubles), a warp's 32 fragment reads fall in two conflict-free 128-byte wavefronts.
 *
 * -D WM, WN   warps of a work-group along M and N
 * -D MT, NT   mma tiles of a warp along M (16 rows each) and N (8 columns each)
 * -D KS       steps of 8 of K in one slab (BK = 8 KS)
 * -D PAD      extra values at the end of each row of As and Bs
 * Edges (any M, N, K >= 1): rows and columns past M or N read the last one (in bounds;
 * never stored), steps past K read zeros; stores of C are guarded.
 * NDRange (SYCL order): (ceil(M / BM), ceil(N / BN) * WG) in work-groups of (1, WG),
 * WG = 32 WM WN.
 */
#include "common.h"

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

#define WG (32 * WM * WN)
#define BM (16 * MT * WM)
#define BN (8 * NT * WN)
#define BK (8 * KS)
#define LA (BM * BK / WG)   /* values of A a work-item stages per slab */
#define LB (BK * BN / WG)   /* values of B */
#define MMA_PTX (PORTGEMM_PTX && USE_FP64 && PORTGEMM_SM >= 90)  /* m16n8k8.f64: sm_90 */

/* acc[mi][ni] = a[mi] b[ni] + acc[mi][ni] for a warp's MT x NT tiles of 16 x 8 x 8 */
inline void mma_step(REAL acc[MT][NT][4], const REAL a[MT][4], const REAL b[NT][2],
                     __local REAL *scratch, const int g, const int t)
{
#if MMA_PTX
    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni) {
            REAL *d = acc[mi][ni];
            asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                : "d"(a[mi][0]), "d"(a[mi][1]), "d"(a[mi][2]), "d"(a[mi][3]),
                  "d"(b[ni][0]), "d"(b[ni][1]), "d"(d[0]), "d"(d[1]), "d"(d[2]), "d"(d[3]));
        }
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

/* the slab of K from k0: its values of A and B this work-item stages, zeros past K */
inline void load_slab(REAL ra[LA], REAL rb[LB], const int k0, const int tid, const int m0,
                      const int n0, const int M, const int N, const int K,
                      __global const REAL *restrict A, const int lda,
                      __global const REAL *restrict B, const int ldb)
{
    for (int e = 0; e < LA; ++e) {
        const int idx = tid + e * WG;
#if A_COLMAJOR  /* a run along m is contiguous: consecutive work-items take consecutive m */
        const int mm = idx % BM, kk = idx / BM;
#else
        const int kk = idx % BK, mm = idx / BK;
#endif
        const int row = min(m0 + mm, M - 1), k = k0 + kk;
        ra[e] = k < K ? A_AT(row, k) : (REAL)0;
    }
    for (int e = 0; e < LB; ++e) {
        const int idx = tid + e * WG;
#if B_COLMAJOR
        const int kk = idx % BK, nn = idx / BK;
#else
        const int nn = idx % BN, kk = idx / BN;
#endif
        const int col = min(n0 + nn, N - 1), k = k0 + kk;
        rb[e] = k < K ? B_AT(k, col) : (REAL)0;
    }
}

inline void store_slab(const REAL ra[LA], const REAL rb[LB], const int tid,
                       __local REAL As[BK][BM + PAD], __local REAL Bs[BK][BN + PAD])
{
    for (int e = 0; e < LA; ++e) {
        const int idx = tid + e * WG;
#if A_COLMAJOR
        As[idx / BM][idx % BM] = ra[e];
#else
        As[idx % BK][idx / BK] = ra[e];
#endif
    }
    for (int e = 0; e < LB; ++e) {
        const int idx = tid + e * WG;
#if B_COLMAJOR
        Bs[idx % BK][idx / BK] = rb[e];
#else
        Bs[idx / BN][idx % BN] = rb[e];
#endif
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void gemm(GEMM_ARGS)
{
    __local REAL As[2][BK][BM + PAD];
    __local REAL Bs[2][BK][BN + PAD];
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

    REAL ra[LA], rb[LB];
    const int slabs = (K + BK - 1) / BK;
    load_slab(ra, rb, 0, tid, m0, n0, M, N, K, A, lda, B, ldb);
    store_slab(ra, rb, tid, As[0], Bs[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < slabs; ++s) {
        const int buf = s & 1;
        if (s + 1 < slabs)
            load_slab(ra, rb, (s + 1) * BK, tid, m0, n0, M, N, K, A, lda, B, ldb);
        for (int ks = 0; ks < KS; ++ks) {
            REAL a[MT][4], b[NT][2];
            for (int mi = 0; mi < MT; ++mi)
                for (int i = 0; i < 4; ++i)
                    a[mi][i] = As[buf][ks * 8 + t + 4 * (i / 2)][wm + mi * 16 + g + 8 * (i % 2)];
            for (int ni = 0; ni < NT; ++ni)
                for (int i = 0; i < 2; ++i)
                    b[ni][i] = Bs[buf][ks * 8 + t + 4 * i][wn + ni * 8 + g];
            mma_step(acc, a, b, scratch, g, t);
        }
        if (s + 1 < slabs)
            store_slab(ra, rb, tid, As[buf ^ 1], Bs[buf ^ 1]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int mi = 0; mi < MT; ++mi)
        for (int ni = 0; ni < NT; ++ni)
            for (int i = 0; i < 4; ++i) {
                const int row = m0 + wm + mi * 16 + g + 8 * (i / 2);
                const int col = n0 + wn + ni * 8 + 2 * t + i % 2;
                if (row < M && col < N)
                    C[row * ldc + col] = acc[mi][ni][i];
            }
}
