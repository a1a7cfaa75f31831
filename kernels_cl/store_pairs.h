/* C's values in pairs of adjacent columns, for the tensor-core kernels (mma.cl, wgmma.cl),
 * whose fragments give each lane two neighbouring values of a row: the pair goes out as
 * one REAL2 store where C allows it (pairs_fit), so that a warp's store fills whole 32-byte
 * sectors instead of every other value of them. On an H100 that ran float64's mma
 * 1.13-2.15x faster where C's stores weigh (a shallow K, 512-2000), float32's wgmma
 * 1.04-1.20x at 512-2048 (bench/results/2026-11-26-h100-store-pairs). */
#ifndef PORTGEMM_STORE_PAIRS_H
#define PORTGEMM_STORE_PAIRS_H

#include "common.h"

/* whether an even column's pair is REAL2-aligned in C: ldc even and C so aligned (after
 * splitk.h has moved C to its slice) */
inline int pairs_fit(__global const REAL *C, const int ldc)
{
    return ldc % 2 == 0 && (size_t)C % (2 * sizeof(REAL)) == 0;
}

/* C[row][col], C[row][col + 1] = v0, v1 where inside M x N; col even */
inline void store_pair(__global REAL *C, const int ldc, const int M, const int N,
                       const int row, const int col, const REAL v0, const REAL v1,
                       const int fit)
{
    if (row >= M || col >= N)
        return;
    __global REAL *at = C + row * ldc + col;
    if (fit && col + 1 < N) {
        *(__global REAL2 *)at = (REAL2)(v0, v1);
    } else {
        at[0] = v0;
        if (col + 1 < N)
            at[1] = v1;
    }
}

#endif
