/* pack: copies of A and B in panels, each panel one contiguous run, for kernels whose
 * work-items walk a few rows of A and a few columns of B along all of K (panel, vec).
 *
 * Read where they lie, the K rows of a few columns of B are ldb apart; for a ldb of a few
 * KiB they share a handful of sets of a CPU's L1 cache and evict each other, and each
 * step of K touches another page. Packed, a panel's steps follow one another.
 *   pack_b: panel p holds columns p*PACK_WIDTH ... p*PACK_WIDTH + PACK_WIDTH - 1 of B,
 *     K-major (a step's PACK_WIDTH values side by side), zeros past N. A work-group of
 *     PACK_LANES work-items copies PACK_STEPS (step, panel) pairs, a step's run of a panel
 *     at a time, neighbouring work-items neighbouring values (for compilers that make a
 *     group's work-items the lanes of a vector: Intel's CPU runtime). Which pairs: for a
 *     row-major B, the groups of block s (steps s*PACK_STEPS ...) share its pairs in B's
 *     own order, along each row through every panel, so a group reads a stretch of B
 *     front to back; for a column-major B, group (s, p) goes down panel p, along each
 *     column's steps. Intel's runtime on a Zen 5, 1024 x 1024: 0.55-0.64 against 1.66-2.00
 *     ms down each panel (each step of which is another row, ldb apart;
 *     bench/results/2026-11-23-cpu-zen5-pack). The loop over a step's values has the same
 *     trip count in every lane: down the panels, `x = lane; x < PACK_WIDTH; x +=
 *     PACK_LANES` took 2.25 ms where this loop took 0.79.
 *     NDRange (SYCL order): (ceil(K / PACK_STEPS), panels * PACK_LANES) in work-groups of
 *     (1, PACK_LANES).
 *   pack_b_rows: the same panels, for compilers that run a group's work-items one after
 *     another (PoCL): a work-item copies PACK_ROWS steps of PACK_PANELS neighbouring
 *     panels, each step's run of B read front to back. In pack_b each such work-item
 *     reads another line every ldb and its neighbours the same lines again (PoCL,
 *     4096 x 4096 within a call: 5-8 GB/s read plus written, pack_b_rows 11-17; alone
 *     19-26 GB/s, a plain copy's speed). On Intel's runtime pack_b_rows packed 1.5-2.3x
 *     faster than pack_b then was (before its groups went along B's rows), but the
 *     product after it ran up to 20% slower at 2048: panel keeps pack_b.
 *     NDRange (SYCL order): (ceil(panels / PACK_PANELS), ceil(K / PACK_ROWS) rounded up
 *     to PACK_LANES) in work-groups of (1, PACK_LANES).
 *   pack_a: panel q holds rows q*PACK_HEIGHT ... q*PACK_HEIGHT + PACK_HEIGHT - 1 of A,
 *     K-major, zeros past M. Work-group (s, q) of PACK_LANES work-items copies steps
 *     s*PACK_STEPS ... s*PACK_STEPS + PACK_STEPS - 1 of panel q, neighbouring steps in
 *     neighbouring work-items.
 *     NDRange (SYCL order): (ceil(K / PACK_STEPS), panels * PACK_LANES) in work-groups of
 *     (1, PACK_LANES).
 */
#include "common.h"

#ifndef PACK_WIDTH
#define PACK_WIDTH 48   // columns of B a panel holds
#endif
#ifndef PACK_HEIGHT
#define PACK_HEIGHT 8   // rows of A a panel holds
#endif
#ifndef PACK_LANES
#define PACK_LANES 16   // work-items of a work-group
#endif
#ifndef PACK_STEPS
#define PACK_STEPS 256  // pack_b, pack_a: steps of K a work-group copies
#endif
#ifndef PACK_ROWS
#define PACK_ROWS 16    // pack_b_rows: steps of K a work-item copies ...
#endif
#ifndef PACK_PANELS
#define PACK_PANELS 4   // ... of this many neighbouring panels
#endif

__kernel __attribute__((reqd_work_group_size(PACK_LANES, 1, 1)))
void pack_b(const int N, const int K, __global const REAL *restrict B, const int ldb,
            __global REAL *restrict P)
{
    const int lane = get_local_id(0);
    const int panels = get_num_groups(0);
    const int k_first = get_group_id(1) * PACK_STEPS;
    for (int t = 0; t < PACK_STEPS; ++t) {
#if B_COLMAJOR
        const int k = k_first + t, panel = get_group_id(0);
#else
        const int pair = get_group_id(0) * PACK_STEPS + t;
        const int k = k_first + pair / panels, panel = pair % panels;
#endif
        if (k >= K)
            break;
        #pragma unroll
        for (int c = 0; c < (PACK_WIDTH + PACK_LANES - 1) / PACK_LANES; ++c) {
            const int x = c * PACK_LANES + lane, j = panel * PACK_WIDTH + x;
            if (x < PACK_WIDTH)
                P[((long)panel * K + k) * PACK_WIDTH + x] = j < N ? B_AT(k, j) : 0;
        }
    }
}

__kernel __attribute__((reqd_work_group_size(PACK_LANES, 1, 1)))
void pack_b_rows(const int N, const int K, __global const REAL *restrict B, const int ldb,
                 __global REAL *restrict P)
{
    const int k0 = get_global_id(0) * PACK_ROWS, k_stop = min(k0 + PACK_ROWS, K);
    const int panel0 = get_global_id(1) * PACK_PANELS;
    const int panel_stop = min(panel0 + PACK_PANELS, (N + PACK_WIDTH - 1) / PACK_WIDTH);
#if B_COLMAJOR  /* a column's steps lie side by side: down each column */
    for (int panel = panel0; panel < panel_stop; ++panel)
        for (int x = 0; x < PACK_WIDTH; ++x) {
            const int j = panel * PACK_WIDTH + x;
            for (int k = k0; k < k_stop; ++k)
                P[((long)panel * K + k) * PACK_WIDTH + x] = j < N ? B[(long)j * ldb + k] : 0;
        }
#else  /* along each step's run of the panels */
    for (int k = k0; k < k_stop; ++k)
        for (int panel = panel0; panel < panel_stop; ++panel) {
            const int j0 = panel * PACK_WIDTH;
            __global const REAL *restrict from = B + (long)k * ldb + j0;
            __global REAL *restrict to = P + ((long)panel * K + k) * PACK_WIDTH;
            if (j0 + PACK_WIDTH <= N) {
                #pragma unroll
                for (int x = 0; x < PACK_WIDTH; ++x)
                    to[x] = from[x];
            } else {
                for (int x = 0; x < PACK_WIDTH; ++x)
                    to[x] = j0 + x < N ? from[x] : 0;
            }
        }
#endif
}

__kernel __attribute__((reqd_work_group_size(PACK_LANES, 1, 1)))
void pack_a(const int M, const int K, __global const REAL *restrict A, const int lda,
            __global REAL *restrict P)
{
    const int panel = get_group_id(0);
    const int k_stop = min(K, (int)get_group_id(1) * PACK_STEPS + PACK_STEPS);
    for (int k = get_group_id(1) * PACK_STEPS + get_local_id(0); k < k_stop; k += PACK_LANES)
        #pragma unroll
        for (int y = 0; y < PACK_HEIGHT; ++y) {
            const int i = panel * PACK_HEIGHT + y;
            P[(panel * K + k) * PACK_HEIGHT + y] = i < M ? A_AT(i, k) : 0;
        }
}
