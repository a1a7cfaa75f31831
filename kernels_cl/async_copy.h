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
#define CP_NOTHING(s)  /* a pipeline's LANDED with nothing more to wait for */

/* Bulk copies: one work-item moves a whole row of bytes from global to local memory. On
 * NVIDIA from sm_90 that is the TMA engine's cp.async.bulk, which bypasses the load/store
 * units; a barrier object (mbarrier) in local memory, one a stage, counts the bytes of
 * each stage's copies. Elsewhere a plain copy by that work-item, done when it ends.
 *   BULK_INIT(tid, bars, n)   work-item 0 sets up n barrier objects of one arrival each
 *                             (a barrier must follow before they are used)
 *   BULK_EXPECT(bar, bytes)   the stage's one arrival, with the bytes its copies will bring
 *   BULK_ARRIVE(bar)          the stage's one arrival, no bytes (its values came otherwise)
 *   BULK_ROW(dst, src, bytes, bar)  a row: both ends 16-byte aligned, bytes a multiple of 16
 *   BULK_LANDED(bar, phase)   waits (every work-item) until the stage's phase-th use, by
 *                             parity, has all its bytes
 * The instructions are sm_90's, written for portgemm/runtime/ptx.py's rebuild. */
#if PORTGEMM_PTX && PORTGEMM_SM >= 90
#define BULK_PTX "//sm_90a:"
#define BULK_AT(p) ((uint)(size_t)(p))
#define BULK_INIT(tid, bars, n)                                                          \
    if ((tid) == 0) {                                                                    \
        for (int b_ = 0; b_ < (n); ++b_)                                                 \
            asm volatile(BULK_PTX "mbarrier.init.shared::cta.b64 [%0], 1;"               \
                         :: "r"(BULK_AT(&(bars)[b_])) : "memory");                       \
        asm volatile(BULK_PTX "fence.mbarrier_init.release.cluster;" ::: "memory");      \
    }
/* the proxy fence orders the work-items' reads of the tile's last use (a barrier before)
 * before the copies' writes */
#define BULK_EXPECT(bar, bytes)                                                          \
    {                                                                                    \
        asm volatile(BULK_PTX "fence.proxy.async.shared::cta;" ::: "memory");            \
        asm volatile(BULK_PTX "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"   \
                     :: "r"(BULK_AT(bar)), "r"(bytes) : "memory");                       \
    }
#define BULK_ARRIVE(bar)                                                                 \
    asm volatile(BULK_PTX "mbarrier.arrive.shared::cta.b64 _, [%0];"                     \
                 :: "r"(BULK_AT(bar)) : "memory")
#define BULK_ROW(dst, src, bytes, bar)                                                   \
    asm volatile(BULK_PTX "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" \
                 " [%0], [%1], %2, [%3];"                                                \
                 :: "r"(BULK_AT(dst)), "l"(src), "r"(bytes), "r"(BULK_AT(bar)) : "memory")
#define BULK_LANDED(bar, phase)                                                          \
    asm volatile(BULK_PTX "{ .reg .pred p_; BULK_WAIT_: mbarrier.try_wait.parity"        \
                 ".shared::cta.b64 p_, [%0], %1; @!p_ bra BULK_WAIT_; }"                 \
                 :: "r"(BULK_AT(bar)), "r"(phase) : "memory")
#else
#define BULK_INIT(tid, bars, n)
#define BULK_EXPECT(bar, bytes)
#define BULK_ARRIVE(bar)
#define BULK_ROW(dst, src, bytes, bar)                                                   \
    { for (int e_ = 0; e_ < (bytes) / CP_REAL_BYTES; ++e_) (dst)[e_] = (src)[e_]; }
#define BULK_LANDED(bar, phase)
#endif

/* The pipeline over slabs 0 .. SLABS - 1: slab s lives in local tile s % ASYNC_STAGES,
 * is requested ASYNC_STAGES - 1 slabs ahead by REQUEST(s, tile) and multiplied by
 * COMPUTE(tile). A group of copies is committed for every slot, empty or not, so that
 * CP_ASYNC_WAIT_OLDER always means "this slab has landed" (and LANDED(s) waits for what
 * came by other means, such as bulk copies); the barrier after it says so for every
 * work-item, and that every one is done with the last slab, whose tile the next request
 * reuses. Not waited for at the end (CP_ASYNC_WAIT_ALL). */
#define CP_ASYNC_PIPELINE(SLABS, REQUEST, COMPUTE, LANDED)                               \
    {                                                                                    \
        _Pragma("unroll")                                                                \
        for (int s_ = 0; s_ < ASYNC_STAGES - 1; ++s_) {                                  \
            if (s_ < (SLABS))                                                            \
                REQUEST(s_, s_);                                                         \
            CP_ASYNC_COMMIT();                                                           \
        }                                                                                \
        for (int s_ = 0; s_ < (SLABS); ++s_) {                                           \
            CP_ASYNC_WAIT_OLDER();                                                       \
            LANDED(s_);                                                                  \
            barrier(CLK_LOCAL_MEM_FENCE);                                                \
            const int ahead_ = s_ + ASYNC_STAGES - 1;                                    \
            if (ahead_ < (SLABS))                                                        \
                REQUEST(ahead_, ahead_ % ASYNC_STAGES);                                  \
            CP_ASYNC_COMMIT();                                                           \
            COMPUTE(s_ % ASYNC_STAGES);                                                  \
        }                                                                                \
    }

#endif
