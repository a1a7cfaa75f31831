/* tallskinny: C = A * B for small M, N and a deep K, at the speed of reading A and B once.
 *
 * Each work-item keeps a whole TM x TN tile of C in registers. Work-group g of a tile
 * takes the g-th of GS contiguous runs of K and its work-item l the values k = start + l,
 * start + l + BS, ...: neighbouring work-items read neighbouring addresses of each row of
 * A and of B (coalesced on a GPU, one SIMD load on a CPU), and each group (each CPU
 * core) streams a region of its own. Each input element is read once per tile. The
 * work-group then sums its work-items' tiles
 * by a tree in local memory, RCH accumulators at a time, and writes one partial tile
 * into slice g of the workspace W (GS slices of M x N); kernels_cl/reduce.cl's
 * sum_slices adds the GS slices into C in a fixed order. No atomics: the same inputs
 * give bit-for-bit the same C on every run.
 *
 * When M or N exceed TM or TN, C is cut into T = ceil(M/TM) * ceil(N/TN) tiles and the
 * work-groups of one K range are numbered consecutively across the tiles (group index
 * = g * T + tile), so the tiles of the same stretch of K run side by side and re-read it
 * from the cache rather than from memory.
 * NDRange: GS * T work-groups of BS work-items (one dimension); any M, N, K >= 1.
 */
#include "common.h"

#ifndef BS
#define BS 256      // work-items per work-group, a power of two
#endif
#ifndef TM
#define TM 8        // rows of C a work-item accumulates
#endif
#ifndef TN
#define TN 8        // columns of C a work-item accumulates
#endif
#ifndef RCH
#define RCH 8       // accumulators summed across the work-group per round; divides TM*TN
#endif

__kernel __attribute__((reqd_work_group_size(BS, 1, 1)))
void partial_tiles(const int M, const int N, const int K,
                   __global const REAL *restrict A, const int lda,
                   __global const REAL *restrict B, const int ldb,
                   __global REAL *restrict W)
{
    const int lid = get_local_id(0);
    const int tiles_n = (N + TN - 1) / TN;
    const int tiles = ((M + TM - 1) / TM) * tiles_n;
    const int tile = get_group_id(0) % tiles;
    const int g = get_group_id(0) / tiles;
    const int groups = get_num_groups(0) / tiles;
    /* Group g's contiguous run of K (whole steps of BS), walked with a stride of BS. */
    const int run = ((K + groups - 1) / groups + BS - 1) / BS * BS;
    const int k_end = min(K, (g + 1) * run);
    const int m0 = (tile / tiles_n) * TM;
    const int n0 = (tile % tiles_n) * TN;

    /* Rows and columns past the edge read the last one (in bounds; never stored). */
    int rows[TM], cols[TN];
    #pragma unroll
    for (int y = 0; y < TM; ++y)
        rows[y] = min(m0 + y, M - 1);
    #pragma unroll
    for (int x = 0; x < TN; ++x)
        cols[x] = min(n0 + x, N - 1);

    REAL acc[TM * TN];
    #pragma unroll
    for (int q = 0; q < TM * TN; ++q)
        acc[q] = 0;

    for (int k = g * run + lid; k < k_end; k += BS) {
        REAL a[TM], b[TN];
        #pragma unroll
        for (int y = 0; y < TM; ++y)
            a[y] = A_AT(rows[y], k);
        #pragma unroll
        for (int x = 0; x < TN; ++x)
            b[x] = B_AT(k, cols[x]);
        #pragma unroll
        for (int y = 0; y < TM; ++y)
            #pragma unroll
            for (int x = 0; x < TN; ++x)
                acc[y * TN + x] = MAD(a[y], b[x], acc[y * TN + x]);
    }

    __local REAL sums[RCH * BS];
    __global REAL *w = W + (long)g * M * N;
    #pragma unroll
    for (int q0 = 0; q0 < TM * TN; q0 += RCH) {
        #pragma unroll
        for (int r = 0; r < RCH; ++r)
            sums[r * BS + lid] = acc[q0 + r];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = BS / 2; s > 0; s >>= 1) {
            if (lid < s) {
                #pragma unroll
                for (int r = 0; r < RCH; ++r)
                    sums[r * BS + lid] += sums[r * BS + lid + s];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (int r = lid; r < RCH; r += BS) {  /* RCH may exceed BS */
            const int q = q0 + r;
            const int i = m0 + q / TN;
            const int j = n0 + q % TN;
            if (i < M && j < N)
                w[i * N + j] = sums[r * BS];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  /* sums[] is reused by the next round */
    }
}
