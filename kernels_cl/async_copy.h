/* Asynchronous copies from global to local memory, for the kernels that stage their slabs
 * ASYNC_STAGES local buffers deep (xgemm.cl, mma.cl). On NVIDIA devices (PORTGEMM_PTX;
 * sm_80 and later) they are PTX's cp.async, which moves values without passing them
 * through registers, so a work-item does not wait for its loads before it computes;
 * elsewhere they are plain copies, done when the statement ends, so CPU runtimes run (and
 * the tests check) the same pipeline; so do NVIDIA GPUs before sm_80.
 *   CP_ASYNC_4, _8, _16(dst, src)  4, 8 or 16 bytes, both ends aligned to that size
 *   CP_ASYNC_ONE(dst, src)          one REAL
 *   CP_ASYNC_ONE_OR_ZERO(dst, src, keep)  one REAL, or a zero where !keep (src not read)
 *   CP_ASYNC_16_OR_ZERO(dst, src, keep)   16 bytes, or zeros
 *   CP_ASYNC_COMMIT()               closes the group of the copies requested since the last
 *   CP_ASYNC_WAIT_OLDER()           waits until at most ASYNC_STAGES - 2 groups are in
 *                                   flight: all but the newer requests have landed
 *   CP_ASYNC_WAIT_ALL()
 * A copy is visible to the other work-items only after a wait and a barrier.
 * The including kernel defines ASYNC_STAGES (2, 3 or 4). */
#ifndef PORTGEMM_ASYNC_COPY_H
#define PORTGEMM_ASYNC_COPY_H

#include "common.h"

#if USE_FP64
#define CP_REAL_BYTES 8
#else
#define CP_REAL_BYTES 4
#endif

#if PORTGEMM_PTX && PORTGEMM_SM >= 80
#define CP_ASYNC_4(dst, src) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n"    \
    :: "r"((uint)(size_t)(dst)), "l"(src) : "memory")
#define CP_ASYNC_8(dst, src) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n"    \
    :: "r"((uint)(size_t)(dst)), "l"(src) : "memory")
#define CP_ASYNC_16(dst, src) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"  \
    :: "r"((uint)(size_t)(dst)), "l"(src) : "memory")
/* the source size operand: fewer bytes than the copy's are read, the rest filled with zeros */
#define CP_ASYNC_ONE_OR_ZERO(dst, src, keep)                                             \
    asm volatile("cp.async.ca.shared.global [%0], [%1], " PG_STR(CP_REAL_BYTES) ", %2;\n" \
        :: "r"((uint)(size_t)(dst)), "l"(src), "r"((keep) ? CP_REAL_BYTES : 0) : "memory")
#define CP_ASYNC_16_OR_ZERO(dst, src, keep)                                              \
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"                      \
        :: "r"((uint)(size_t)(dst)), "l"(src), "r"((keep) ? 16 : 0) : "memory")
#define CP_ASYNC_COMMIT() asm volatile("cp.async.commit_group;\n" ::: "memory")
#define CP_ASYNC_WAIT_OLDER()                                                            \
    asm volatile("cp.async.wait_group " PG_STR(CP_IN_FLIGHT) ";\n" ::: "memory")
#define CP_ASYNC_WAIT_ALL() asm volatile("cp.async.wait_all;\n" ::: "memory")
#if ASYNC_STAGES == 2   /* a literal: the instruction takes no expression */
#define CP_IN_FLIGHT 0
#elif ASYNC_STAGES == 3
#define CP_IN_FLIGHT 1
#else
#define CP_IN_FLIGHT 2
#endif
#else
#define CP_COPY_N(dst, src, W)                                                           \
    { _Pragma("unroll") for (int e_ = 0; e_ < (W); ++e_) (dst)[e_] = (src)[e_]; }
#define CP_ASYNC_4(dst, src) CP_COPY_N(dst, src, 4 / CP_REAL_BYTES)
#define CP_ASYNC_8(dst, src) CP_COPY_N(dst, src, 8 / CP_REAL_BYTES)
#define CP_ASYNC_16(dst, src) CP_COPY_N(dst, src, 16 / CP_REAL_BYTES)
#define CP_ASYNC_ONE_OR_ZERO(dst, src, keep) (*(dst) = (keep) ? *(src) : (REAL)0)
#define CP_ASYNC_16_OR_ZERO(dst, src, keep)                                              \
    { _Pragma("unroll") for (int e_ = 0; e_ < 16 / CP_REAL_BYTES; ++e_)                  \
          (dst)[e_] = (keep) ? (src)[e_] : (REAL)0; }
#define CP_ASYNC_COMMIT()
#define CP_ASYNC_WAIT_OLDER()
#define CP_ASYNC_WAIT_ALL()
#endif
#define CP_ASYNC_ONE(dst, src) PG_CAT(CP_ASYNC_, CP_REAL_BYTES)(dst, src)

/* The pipeline over slabs 0 .. SLABS - 1: slab s lives in local tile s % ASYNC_STAGES,
 * is requested ASYNC_STAGES - 1 slabs ahead by REQUEST(s, tile) and multiplied by
 * COMPUTE(tile). A group of copies is committed for every slot, empty or not, so that
 * CP_ASYNC_WAIT_OLDER always means "this slab has landed"; the barrier after it says so
 * for every work-item, and that every one is done with the last slab, whose tile the next
 * request reuses. Not waited for at the end (CP_ASYNC_WAIT_ALL). */
#define CP_ASYNC_PIPELINE(SLABS, REQUEST, COMPUTE)                                       \
    {                                                                                    \
        _Pragma("unroll")                                                                \
        for (int s_ = 0; s_ < ASYNC_STAGES - 1; ++s_) {                                  \
            if (s_ < (SLABS))                                                            \
                REQUEST(s_, s_);                                                         \
            CP_ASYNC_COMMIT();                                                           \
        }                                                                                \
        for (int s_ = 0; s_ < (SLABS); ++s_) {                                           \
            CP_ASYNC_WAIT_OLDER();                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                \
            const int ahead_ = s_ + ASYNC_STAGES - 1;                                    \
            if (ahead_ < (SLABS))                                                        \
                REQUEST(ahead_, ahead_ % ASYNC_STAGES);                                  \
            CP_ASYNC_COMMIT();                                                           \
            COMPUTE(s_ % ASYNC_STAGES);                                                  \
        }                                                                                \
    }

#endif
