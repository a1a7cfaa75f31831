/* reduce: the second pass of the kernels that split K (xgemm's split-K, tallskinny):
 * C = the sum of S partial products lying one after another in a workspace,
 * W[s][i][j] = W[(s * M + i) * N + j], added in slice order so the result is the same,
 * bit for bit, on every run.
 *
 * -D SUM_VEC  1 or 4: elements of a row of C per work-item. 4 (for a C of many
 *             elements) reads and writes them as vectors: a sum of 4097^2 elements ran at
 *             ~2 TB/s one element a work-item and ~4 TB/s with 4 on an H200
 *             (bench/gpu/splitk_parts.py). The row's last N % 4 go one by one.
 * NDRange: (M, ceil(N / SUM_VEC)) rounded up to the work-group.
 */
#include "common.h"

#ifndef SUM_VEC
#define SUM_VEC 1        // elements of a row of C per work-item: 1 or 4
#endif

__kernel void sum_slices(const int M, const int N, const int S,
                         __global const REAL *restrict W, __global REAL *restrict C,
                         const int ldc)
{
    const int j = get_global_id(0) * SUM_VEC;
    const int i = get_global_id(1);
    if (i >= M || j >= N)
        return;
    const long slice = (long)M * N;
    __global const REAL *w = W + (long)i * N + j;
    __global REAL *c = C + (long)i * ldc + j;
#if SUM_VEC > 1
    if (j + SUM_VEC <= N) {  /* vload/vstore assume only the element's alignment */
        PG_CAT(REAL, SUM_VEC) acc = 0;
        for (int s = 0; s < S; ++s)
            acc += PG_CAT(vload, SUM_VEC)(0, w + s * slice);
        PG_CAT(vstore, SUM_VEC)(acc, 0, c);
        return;
    }
#endif
    for (int e = 0; e < SUM_VEC && j + e < N; ++e) {
        REAL acc = 0;
        for (int s = 0; s < S; ++s)
            acc += w[s * slice + e];
        c[e] = acc;
    }
}
