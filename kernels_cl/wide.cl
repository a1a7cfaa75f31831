/* wide: C = A * B for a C of few rows and many columns (a row vector, or a few rows, times
 * a matrix: M small, N and K large), at the speed of reading B once.
 *
 * The work-items of a group run along N. Work-item l keeps TM rows x TN columns of C in
 * registers, its columns BS apart (j = block + l + BS t), so at each step of K the group
 * reads TN runs of BS neighbouring values of a row of B (coalesced on a GPU, whole SIMD
 * vectors on a CPU), and every work-item of the group reads the same TM values of A. A
 * work-item adds its products over K in sequence, KU steps at a time, in one of two
 * orders (BY_COLUMN):
 *   0: the KU steps' loads first, then their products (a GPU: every load in flight at
 *      once; 16 x 8192 x 8192 ran 1.8x slower on the H200 in the other order);
 *   1: column by column, the KU rows' values of each side by side: KU streams of B at
 *      once, which a CPU's prefetchers follow (1.4x faster on Intel's runtime). Columns and
 * rows past C's edge read its last column or row (no branch in the loop) and are not
 * stored.
 *
 * C of few columns cannot keep a device busy this way, and a long sum in one work-item
 * loses float32 accuracy, so K is split (KSPLIT > 1, splitk.h): layers of groups, each
 * over a run of K, write partial products that reduce.cl adds in order. No atomics: the
 * same inputs give bit-for-bit the same C on every run.
 * NDRange (SYCL order): (KSPLIT, ceil(M / TM), ceil(N / (BS TN)) * BS), groups of
 * (1, 1, BS); any M, N, K >= 1.
 */
#include "splitk.h"

#ifndef BS
#define BS 256      // work-items per work-group, along N
#endif
#ifndef TM
#define TM 1        // rows of C a work-item keeps
#endif
#ifndef TN
#define TN 2        // columns of C a work-item keeps, BS apart
#endif
#ifndef KU
#define KU 8        // steps of K a work-item takes at a time
#endif
#ifndef BY_COLUMN
#define BY_COLUMN 0 // 1: the KU steps column by column (CPUs); 0: all their loads first
#endif
#ifndef KSPLIT
#define KSPLIT 1    // layers of work-groups along K (splitk.h)
#endif

__kernel __attribute__((reqd_work_group_size(BS, 1, 1)))
void gemm(SPLIT_GEMM_ARGS)
{
    SPLIT_K(1);
    const int i0 = get_group_id(1) * TM;
    const int j0 = get_group_id(0) * (BS * TN) + get_local_id(0);
    int rows[TM], cols[TN];  /* clamped into C: their loads stay inside A and B */
    #pragma unroll
    for (int r = 0; r < TM; ++r)
        rows[r] = min(i0 + r, M - 1);
    #pragma unroll
    for (int t = 0; t < TN; ++t)
        cols[t] = min(j0 + BS * t, N - 1);

    REAL acc[TM][TN];
    #pragma unroll
    for (int r = 0; r < TM; ++r) {
        #pragma unroll
        for (int t = 0; t < TN; ++t)
            acc[r][t] = 0;
    }
    int k = 0;
    for (; k + KU <= K; k += KU) {
        REAL a[KU][TM];
        #pragma unroll
        for (int u = 0; u < KU; ++u) {
            #pragma unroll
            for (int r = 0; r < TM; ++r)
                a[u][r] = A_AT(rows[r], k + u);
        }
#if BY_COLUMN
        #pragma unroll
        for (int t = 0; t < TN; ++t) {
            REAL b[KU];
            #pragma unroll
            for (int u = 0; u < KU; ++u)
                b[u] = B_AT(k + u, cols[t]);
            #pragma unroll
            for (int r = 0; r < TM; ++r) {
                #pragma unroll
                for (int u = 0; u < KU; ++u)
                    acc[r][t] = MAD(a[u][r], b[u], acc[r][t]);
            }
        }
#else
        REAL b[KU][TN];
        #pragma unroll
        for (int u = 0; u < KU; ++u) {
            #pragma unroll
            for (int t = 0; t < TN; ++t)
                b[u][t] = B_AT(k + u, cols[t]);
        }
        #pragma unroll
        for (int u = 0; u < KU; ++u) {
            #pragma unroll
            for (int r = 0; r < TM; ++r) {
                #pragma unroll
                for (int t = 0; t < TN; ++t)
                    acc[r][t] = MAD(a[u][r], b[u][t], acc[r][t]);
            }
        }
#endif
    }
    for (; k < K; ++k) {  /* the steps past the last whole KU */
        #pragma unroll
        for (int r = 0; r < TM; ++r) {
            const REAL a = A_AT(rows[r], k);
            #pragma unroll
            for (int t = 0; t < TN; ++t)
                acc[r][t] = MAD(a, B_AT(k, cols[t]), acc[r][t]);
        }
    }
    #pragma unroll
    for (int r = 0; r < TM; ++r) {
        #pragma unroll
        for (int t = 0; t < TN; ++t) {
            const int j = j0 + BS * t;
            if (i0 + r < M && j < N)
                C[(i0 + r) * ldc + j] = acc[r][t];
        }
    }
}
