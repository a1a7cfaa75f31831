/* naive: one work-item per element of C, reading A and B straight from global memory.
 * No parameters beyond the prelude's. NDRange: (M, N) rounded up to the work-group.
 */
#include "common.h"

__kernel void gemm(GEMM_ARGS)
{
    ENTER_STACK;
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= M || col >= N)
        return;
    REAL acc = 0;
    for (int k = 0; k < K; ++k)
        acc = MAD(A_AT(row, k), B_AT(k, col), acc);
    C[row * ldc + col] = acc;
}
