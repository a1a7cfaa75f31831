/* phvm: the paper's kernels for a horizontal times a vertical matrix (seed 001: PHVM and
 * its baseline BasicMM), M, N << K.
 *
 * The whole grid of GS work-groups x BS work-items computes one element of C after the
 * other (the paper's model times M * N single elements): for element (i, j) every
 * work-item adds up its share of A.row(i) . B.col(j) in a register (L4), the work-group
 * sums its work-items' values by a tree in local memory (L5), and its first work-item adds
 * the group's sum into C[i][j] with one atomic add (L6). C must hold zeros beforehand.
 * How the K range is shared (L4):
 *   COALESCED = 1 (PHVM, L4^): work-item t takes k = t, t + GS*BS, t + 2*GS*BS, ... so
 *     neighbouring work-items read neighbouring addresses of a row of A (and of a column
 *     of B when B is stored column-major, the paper's F.COL(j) as a contiguous vector);
 *   COALESCED = 0 (BasicMM, L4): work-item t takes the contiguous segment
 *     [t * ceil(K / (GS*BS)), (t + 1) * ceil(K / (GS*BS))).
 * ELEMENT_LAUNCHES = 1 reads the paper's Algorithm 1 literally: each element of C is one
 * whole-grid inner product, one launch each (the launch's extra argument `element` names
 * it), so no launch reuses another's loads. That is what the paper's cost model charges;
 * with 0 (the default) every work-item loops over the elements itself, and a group whose
 * share of K is short finds A's and B's values of the previous elements still in cache.
 * Floats have no atomic add in OpenCL 1.2: it is a compare-and-swap loop on the bits
 * (cl_khr_int64_base_atomics for double), except on NVIDIA devices (PORTGEMM_PTX), where
 * PTX's red.global.add is the paper's CUDA atomicAdd: one reduction at the L2 cache, not a
 * read-compare-retry loop that contending groups repeat. The order of the additions into C varies from
 * run to run, so the last bits of C do too: the deterministic kernel is tallskinny.
 * NDRange: GS * BS work-items in work-groups of BS (one dimension); any M, N, K >= 1.
 */
#include "common.h"

#ifndef BS
#define BS 256          // work-items per work-group (the paper's block size), a power of two
#endif
#ifndef COALESCED
#define COALESCED 1     // 1: PHVM's grid-stride loads (L4^); 0: BasicMM's contiguous segments
#endif
#ifndef ELEMENT_LAUNCHES
#define ELEMENT_LAUNCHES 0  // 1: one launch per element of C (argument `element`); 0: all in one
#endif

/* C += v: PTX's reduction on NVIDIA, elsewhere compare-and-swap on the value's bits. */
#if USE_FP64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define REAL_BITS ulong
#define CMPXCHG_BITS atom_cmpxchg
#else
#define REAL_BITS uint
#define CMPXCHG_BITS atomic_cmpxchg
#endif
inline void atomic_add_real(volatile __global REAL *p, const REAL v)
{
#if PORTGEMM_PTX && USE_FP64
    asm volatile("red.global.add.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
#elif PORTGEMM_PTX
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
#else
    union { REAL_BITS bits; REAL value; } seen, wanted;
    do {
        seen.value = *p;
        wanted.value = seen.value + v;
    } while (CMPXCHG_BITS((volatile __global REAL_BITS *)p, seen.bits, wanted.bits)
             != seen.bits);
#endif
}

__kernel __attribute__((reqd_work_group_size(BS, 1, 1)))
#if ELEMENT_LAUNCHES
void gemm(GEMM_ARGS, const int element)
#else
void gemm(GEMM_ARGS)
#endif
{
    const int lid = get_local_id(0);
    const int t = get_global_id(0);
    const int threads = get_global_size(0);
    __local REAL sums[BS];
#if !COALESCED
    const int per = (K + threads - 1) / threads;
    const int k_begin = min(K, t * per);
    const int k_end = min(K, k_begin + per);
#endif
#if ELEMENT_LAUNCHES
    for (int e = element; e <= element; ++e) {
#else
    for (int e = 0; e < M * N; ++e) {
#endif
        const int i = e / N;
        const int j = e % N;
        REAL acc = 0;
#if COALESCED
        for (int k = t; k < K; k += threads)
#else
        for (int k = k_begin; k < k_end; ++k)
#endif
            acc = MAD(A_AT(i, k), B_AT(k, j), acc);
        sums[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = BS / 2; s > 0; s >>= 1) {
            if (lid < s)
                sums[lid] += sums[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            atomic_add_real(C + i * ldc + j, sums[0]);
        barrier(CLK_LOCAL_MEM_FENCE);  /* sums[] is reused for the next element */
    }
}
