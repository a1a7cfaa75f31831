/* pack: copies of A and B in panels, each panel one contiguous run, for kernels whose
 * work-items walk a few rows of A and a few columns of B along all of K (panel, vec).
 *
 * Read where they lie, the K rows of a few columns of B are ldb apart; for a ldb of a few
 * KiB they share a handful of sets of a CPU's L1 cache and evict each other, and each
 * step of K touches another page. Packed, a panel's steps follow one another.
 *   pack_b: panel p holds columns p*PACK_WIDTH ... p*PACK_WIDTH + PACK_WIDTH - 1 of B,
 *     K-major (a step's PACK_WIDTH values side by side), zeros past N.
 *   pack_a: panel q holds rows q*PACK_HEIGHT ... q*PACK_HEIGHT + PACK_HEIGHT - 1 of A,
 *     K-major, zeros past M.
 * Work-group (s, p) of PACK_LANES work-items copies steps s*PACK_STEPS ...
 * s*PACK_STEPS + PACK_STEPS - 1 of panel p: neighbouring work-items copy neighbouring
 * values (of a step of B; of A, neighbouring steps).
 * NDRange (SYCL order): (ceil(K / PACK_STEPS), panels * PACK_LANES) in work-groups of
 * (1, PACK_LANES).
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
#define PACK_STEPS 256  // steps of K a work-group copies
#endif

__kernel __attribute__((reqd_work_group_size(PACK_LANES, 1, 1)))
void pack_b(const int N, const int K, __global const REAL *restrict B, const int ldb,
            __global REAL *restrict P)
{
    const int lane = get_local_id(0);
    const int panel = get_group_id(0);
    const int k_stop = min(K, (int)get_group_id(1) * PACK_STEPS + PACK_STEPS);
    for (int k = get_group_id(1) * PACK_STEPS; k < k_stop; ++k)
        #pragma unroll
        for (int x = lane; x < PACK_WIDTH; x += PACK_LANES) {
            const int j = panel * PACK_WIDTH + x;
            P[(panel * K + k) * PACK_WIDTH + x] = j < N ? B_AT(k, j) : 0;
        }
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
