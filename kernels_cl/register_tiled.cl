/* register_tiled: each work-item computes a TILE_Y x TILE_X block of C in private
 * registers (variant "tiled"), loading LENGTH values of K at a time into private input
 * registers before the outer products (variant "inreg"; "tiled" is LENGTH = 1).
 *
 * NDRange: (ceil(M / TILE_Y), ceil(N / TILE_X)) rounded up to the work-group.
 * Loads past the edges read 0 and stores past them are skipped: any M, N, K works.
 */
#include "common.h"

#ifndef TILE_Y
#define TILE_Y 4    // rows of C per work-item, >= 1
#endif
#ifndef TILE_X
#define TILE_X 4    // columns of C per work-item, >= 1
#endif
#ifndef LENGTH
#define LENGTH 1    // K values held per step in the input registers, >= 1 (tiled: 1)
#endif

__kernel void gemm(GEMM_ARGS)
{
    ENTER_STACK;
    const int row0 = get_global_id(1) * TILE_Y;
    const int col0 = get_global_id(0) * TILE_X;
    if (row0 >= M || col0 >= N)
        return;

    REAL acc[TILE_Y][TILE_X];
    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y)
        #pragma unroll
        for (int x = 0; x < TILE_X; ++x)
            acc[y][x] = 0;

    REAL a_reg[TILE_Y][LENGTH];
    REAL b_reg[LENGTH][TILE_X];
    for (int k0 = 0; k0 < K; k0 += LENGTH) {
        #pragma unroll
        for (int y = 0; y < TILE_Y; ++y)
            #pragma unroll
            for (int l = 0; l < LENGTH; ++l)
                a_reg[y][l] = (row0 + y < M && k0 + l < K) ? A_AT(row0 + y, k0 + l) : 0;
        #pragma unroll
        for (int l = 0; l < LENGTH; ++l)
            #pragma unroll
            for (int x = 0; x < TILE_X; ++x)
                b_reg[l][x] = (k0 + l < K && col0 + x < N) ? B_AT(k0 + l, col0 + x) : 0;
        #pragma unroll
        for (int l = 0; l < LENGTH; ++l)
            #pragma unroll
            for (int y = 0; y < TILE_Y; ++y)
                #pragma unroll
                for (int x = 0; x < TILE_X; ++x)
                    acc[y][x] = MAD(a_reg[y][l], b_reg[l][x], acc[y][x]);
    }

    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y)
        #pragma unroll
        for (int x = 0; x < TILE_X; ++x)
            if (row0 + y < M && col0 + x < N)
                C[(row0 + y) * ldc + col0 + x] = acc[y][x];
}
