/* local: shared-memory tiling plus register blocking (the seed reports' local-memory kernel).
 *
 * A work-group of WG_Y x WG_X work-items computes a TILE_M x TILE_N tile of C, with
 * TILE_M = WG_Y * TILE_Y and TILE_N = WG_X * TILE_X. K is walked in slabs of TILE_K: the
 * slab's TILE_M x TILE_K piece of A and TILE_K x TILE_N piece of B are copied into local
 * memory by all work-items together (barrier), then each work-item accumulates its
 * TILE_Y x TILE_X elements of C in registers (barrier before the next copy).
 *
 * A work-item owns rows ty + y*WG_Y and columns tx + x*WG_X of the tile (strided), so
 * neighbouring work-items read neighbouring local addresses (no bank conflicts on GPUs,
 * one SIMD row of work-items on CPUs that vectorise across them) and store neighbouring
 * elements of C.
 * Loads: work-items take the tile's elements in the order they lie in global memory (along
 * k for a row-major A, along m for a column-major one; along n for a row-major B, along k
 * for a column-major one), so neighbouring work-items read neighbouring addresses.
 * Edges: loads past M, N or K read 0 and stores past M or N are skipped: any M, N, K works.
 * NDRange: (ceil(M / TILE_Y), ceil(N / TILE_X)) rounded up to the work-group.
 */
#include "common.h"

#ifndef WG_Y
#define WG_Y 16     // work-items along M (OpenCL dimension 1), >= 1
#endif
#ifndef WG_X
#define WG_X 16     // work-items along N (OpenCL dimension 0), >= 1
#endif
#ifndef TILE_Y
#define TILE_Y 4    // rows of C per work-item, >= 1
#endif
#ifndef TILE_X
#define TILE_X 4    // columns of C per work-item, >= 1
#endif
#ifndef TILE_K
#define TILE_K 16   // depth of one K slab in local memory, >= 1
#endif

#define TILE_M (WG_Y * TILE_Y)
#define TILE_N (WG_X * TILE_X)
#define WG_SIZE (WG_Y * WG_X)

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void gemm(GEMM_ARGS)
{
    ENTER_STACK;
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * WG_X + tx;
    const int m0 = get_group_id(1) * TILE_M;
    const int n0 = get_group_id(0) * TILE_N;

    __local REAL As[TILE_M][TILE_K];
    __local REAL Bs[TILE_K][TILE_N];

    REAL acc[TILE_Y][TILE_X];
    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y)
        #pragma unroll
        for (int x = 0; x < TILE_X; ++x)
            acc[y][x] = 0;

    for (int k0 = 0; k0 < K; k0 += TILE_K) {
        /* A's slab, in the order it lies in global memory. */
        for (int e = tid; e < TILE_M * TILE_K; e += WG_SIZE) {
            const int i = A_COLMAJOR ? e % TILE_M : e / TILE_K;
            const int l = A_COLMAJOR ? e / TILE_M : e % TILE_K;
            const int gi = m0 + i, gl = k0 + l;
            As[i][l] = (gi < M && gl < K) ? A_AT(gi, gl) : (REAL)0;
        }
        /* B's slab, likewise. */
        for (int e = tid; e < TILE_K * TILE_N; e += WG_SIZE) {
            const int l = B_COLMAJOR ? e % TILE_K : e / TILE_N;
            const int j = B_COLMAJOR ? e / TILE_K : e % TILE_N;
            const int gl = k0 + l, gj = n0 + j;
            Bs[l][j] = (gl < K && gj < N) ? B_AT(gl, gj) : (REAL)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int l = 0; l < TILE_K; ++l) {
            REAL a[TILE_Y], b[TILE_X];
            #pragma unroll
            for (int y = 0; y < TILE_Y; ++y)
                a[y] = As[ty + y * WG_Y][l];
            #pragma unroll
            for (int x = 0; x < TILE_X; ++x)
                b[x] = Bs[l][tx + x * WG_X];
            #pragma unroll
            for (int y = 0; y < TILE_Y; ++y)
                #pragma unroll
                for (int x = 0; x < TILE_X; ++x)
                    acc[y][x] = MAD(a[y], b[x], acc[y][x]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    #pragma unroll
    for (int y = 0; y < TILE_Y; ++y) {
        const int row = m0 + ty + y * WG_Y;
        #pragma unroll
        for (int x = 0; x < TILE_X; ++x) {
            const int col = n0 + tx + x * WG_X;
            if (row < M && col < N)
                C[row * ldc + col] = acc[y][x];
        }
    }
}
