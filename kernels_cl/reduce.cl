/* reduce: the second pass of the kernels that split K (xgemm's split-K, tallskinny):
 * C = the sum of S partial products lying one after another in a workspace,
 * W[s][i][j] = W[(s * M + i) * N + j], added in slice order so the result is the same,
 * bit for bit, on every run. One work-item per element of C.
 * NDRange: (M, N) rounded up to the work-group.
 */
#include "common.h"

__kernel void sum_slices(const int M, const int N, const int S,
                         __global const REAL *restrict W, __global REAL *restrict C,
                         const int ldc)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= M || j >= N)
        return;
    const long slice = (long)M * N;
    __global const REAL *w = W + (long)i * N + j;
    REAL acc = 0;
    for (int s = 0; s < S; ++s)
        acc += w[s * slice];
    C[(long)i * ldc + j] = acc;
}
