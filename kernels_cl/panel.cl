/* panel: a register tile over panels of K, no local memory and no barrier: for CPUs.
 *
 * A CPU runtime runs a work-group's work-items as the lanes of SIMD vectors, one group a
 * task on a core; local memory is ordinary memory there, and a barrier splits the kernel
 * into loops over the work-items that keep private values in memory in between. Here a
 * work-group is LANES work-items (one vector) that read A and B where they lie, as
 * BLIS's micro-kernels do: each work-item holds an MR x NV block of C (its columns
 * LANES apart, so the group holds MR x NR, NR = NV * LANES, and a row of B at one k is
 * NV vector loads across the lanes); a step of K costs MR values of A (the same in every
 * lane: broadcasts), NV of B, and MR * NV multiply-adds.
 *
 * The group walks MB rows of C, MR at a time, over one panel of KC steps of K, then the
 * next panel: the KC x NR values of B stay in the core's L1 cache across the MB rows, and
 * C is read and written once a panel.
 * PACKED 1: kernels_cl/pack.cl first copies B into panels of NR columns, each one
 * contiguous run (1.6-2.3x faster from 1024 to 4096 on Intel's runtime: the KC rows of B
 * a panel reads otherwise lie ldb apart, in a few sets of L1). PACK_A 1: A too, in
 * panels of MR rows (one stream a work-item instead of MR); it repays its pass over A
 * only where many groups of columns read A again.
 * -D MR, NV       rows and vectors of columns of a work-item's block of C
 * -D LANES        work-items of a work-group: the runtime's SIMD width
 * -D KC           steps of K of one panel
 * -D MB           rows of C of one work-group (a multiple of MR)
 * -D PACKED       1: B comes packed in panels (ldb = NR, passed: Intel's CPU compiler
 *                 turned loads at k * NR + lane into gathers where NR was a constant)
 * -D PACK_A       1: A comes packed in panels (lda unused)
 * Edges (any M, N, K >= 1): rows past M read the last one (in bounds; never stored);
 * columns past N are zeros in the packed panels, and in a row-major B in place are read
 * as they lie, on into the next rows (never stored), so the runtime sees consecutive
 * addresses across the lanes, but for the last steps, where that would pass B's end,
 * and in a column-major B, which read the last column instead.
 * NDRange (SYCL order): (ceil(M / MB), ceil(N / NR) * LANES) in work-groups of (1, LANES).
 */
#include "common.h"

#ifndef MR
#define MR 8        // rows of C a work-item holds
#endif
#ifndef NV
#define NV 3        // columns of C a work-item holds, LANES apart
#endif
#ifndef LANES
#define LANES 16    // work-items of a work-group
#endif
#ifndef KC
#define KC 128      // steps of K of one panel
#endif
#ifndef MB
#define MB 256      // rows of C of one work-group
#endif

#ifndef PACKED
#define PACKED 0    // 1: B comes packed in panels of NR columns (kernels_cl/pack.cl)
#endif
#ifndef PACK_A
#define PACK_A 0    // 1: A comes packed in panels of MR rows
#endif

#define NR (NV * LANES)

/* acc[i][v] += sum over k0 <= k < k1 of a(i, k) * b(k, v), where a(i, k) is
 * A[rows[i] * a_row + k * a_step] and b(k, v) is B[k * b_step + cols[v]] (cols[] hold
 * the columns' offsets) */
inline void panel_product(REAL acc[MR][NV], const int k0, const int k1,
                          __global const REAL *restrict A, const int *rows, const int a_row,
                          const int a_step, __global const REAL *restrict B,
                          const int *cols, const int b_step)
{
    for (int k = k0; k < k1; ++k) {
        REAL b[NV];
        #pragma unroll
        for (int v = 0; v < NV; ++v)
            b[v] = B[k * b_step + cols[v]];
        #pragma unroll
        for (int i = 0; i < MR; ++i) {
            const REAL a = A[rows[i] * a_row + k * a_step];
            #pragma unroll
            for (int v = 0; v < NV; ++v)
                acc[i][v] = MAD(a, b[v], acc[i][v]);
        }
    }
}

#if PACKED || !B_COLMAJOR
#define COL_OFFSET(j) (j)
#else
#define COL_OFFSET(j) ((j) * ldb)   /* a column of a column-major B */
#endif

__kernel __attribute__((reqd_work_group_size(LANES, 1, 1)))
void gemm(GEMM_ARGS)
{
    ENTER_STACK;
    const int lane = get_local_id(0);
    const int n0 = get_group_id(0) * NR;
    const int m_first = get_group_id(1) * MB;
    const int m_stop = min(M, m_first + MB);
    int cols[NV], clamped[NV];
    #pragma unroll
    for (int v = 0; v < NV; ++v) {
        cols[v] = n0 + lane + v * LANES;
        clamped[v] = COL_OFFSET(min(cols[v], N - 1));
    }
#if PACKED
    /* the group's panel of B: steps of ldb = NR values, zeros past N */
    __global const REAL *b_panel = B + (long)get_group_id(0) * K * ldb - n0;
    const int b_step = ldb;
    const int run_end = K;
#else
    __global const REAL *b_panel = B;
    const int b_step = B_COLMAJOR ? 1 : ldb;
    /* The steps before run_end read the group's columns of a row-major B as they lie,
     * past N on into the rest of the row and the next rows (values never stored), so
     * the lanes load consecutive addresses (clamped columns cost Intel's runtime a
     * gather: 64 stacked products of 100^3 took 4x the time of 96^3). From run_end on
     * that would pass B's end, and a column-major B's columns lie apart: there clamped
     * columns, value by value. */
    const int run_end = B_COLMAJOR ? 0 : max(0, K + 1 - (n0 + NR + ldb - 1) / ldb);
#endif
    const bool inside = run_end >= K;
#if PACK_A
    const int a_row = 1, a_step = MR;  /* a panel's steps of MR values, zeros past M */
#else
    const int a_row = A_COLMAJOR ? 1 : lda, a_step = A_COLMAJOR ? lda : 1;
#endif

    for (int k0 = 0; k0 < K; k0 += KC) {
        const int k1 = min(K, k0 + KC);
        for (int m0 = m_first; m0 < m_stop; m0 += MR) {
            int rows[MR];
#if PACK_A
            __global const REAL *a_panel = A + (long)m0 * K;
            #pragma unroll
            for (int i = 0; i < MR; ++i)
                rows[i] = i;
#else
            __global const REAL *a_panel = A;
            #pragma unroll
            for (int i = 0; i < MR; ++i)
                rows[i] = min(m0 + i, M - 1);
#endif
            REAL acc[MR][NV];
            #pragma unroll
            for (int i = 0; i < MR; ++i)
                #pragma unroll
                for (int v = 0; v < NV; ++v)
                    acc[i][v] = 0;
            if (inside) {
                panel_product(acc, k0, k1, a_panel, rows, a_row, a_step, b_panel, cols, b_step);
            } else {
                const int k_on = clamp(run_end, k0, k1);
                panel_product(acc, k0, k_on, a_panel, rows, a_row, a_step, b_panel, cols,
                              b_step);
                panel_product(acc, k_on, k1, a_panel, rows, a_row, a_step, b_panel, clamped,
                              b_step);
            }
            #pragma unroll
            for (int i = 0; i < MR; ++i)
                #pragma unroll
                for (int v = 0; v < NV; ++v)
                    if (m0 + i < M && cols[v] < N) {
                        __global REAL *c = C + (m0 + i) * ldc + cols[v];
                        *c = k0 == 0 ? acc[i][v] : *c + acc[i][v];
                    }
        }
    }
}
