/* xgemm: the tunable high-performance GEMM family. One source; every knob is a -D define.
 *
 * A work-group of MDIMC x NDIMC work-items computes an MWG x NWG tile of C. It walks K in
 * slabs of KWG: the slab's MWG x KWG piece of A and KWG x NWG piece of B are copied into
 * local memory by all work-items together, then each work-item accumulates its
 * MWI x NWI = (MWG/MDIMC) x (NWG/NDIMC) block of C in private registers.
 *
 * -D MWG, NWG, KWG  work-group tile: rows of C, columns of C, depth of one K slab
 * -D MDIMC, NDIMC   work-group shape: MDIMC work-items along M (OpenCL dimension 1),
 *                   NDIMC along N (dimension 0); MWG % (MDIMC*VWM) == 0,
 *                   NWG % (NDIMC*VWN) == 0
 * -D VW             1, 2, 4 or 8: elements per global load (vloadVW, so only the element's
 *                   alignment is assumed; an aligned vector load is used where the leading
 *                   dimension allows it). VW divides MWG, NWG and KWG, and each tile's
 *                   vectors split evenly over the work-group: (MWG*KWG/VW) % (MDIMC*NDIMC)
 *                   == 0 and (KWG*NWG/VW) % (MDIMC*NDIMC) == 0
 * -D VWM, VWN       1, 2, 4 or 8: a work-item's rows (columns) of C come in runs of VWM
 *                   (VWN) adjacent ones, runs MDIMC*VWM (NDIMC*VWN) apart, and each run is
 *                   read from local memory as one vector. VWN = 1 makes neighbouring
 *                   work-items own neighbouring columns (what CPU runtimes that vectorise
 *                   across work-items want); VWN = 4 gives GPUs 128-bit local reads.
 * -D PAD            0 or 1: pads each local-memory row by one run (VWM or VWN elements, 1
 *                   for an untransposed A) so transposing stores spread over the banks
 * -D DOUBLE_BUFFER  0: copy a slab into local memory, barrier, compute, barrier (two
 *                   barriers a slab). 1: two local buffers; the next slab is read from
 *                   global memory into registers before computing on the current one and
 *                   written to the other buffer after it: one barrier a slab
 * -D KUNROLL        the compute loop over a slab is unrolled KUNROLL times; KWG % KUNROLL == 0
 * -D WARPN          how the blocks of C are dealt to work-items: each 32 consecutive
 *                   work-items (a warp on NVIDIA GPUs) take a (32/WARPN) x WARPN patch of
 *                   the MDIMC x NDIMC grid of blocks. WARPN = min(NDIMC, 32) is the plain
 *                   row-by-row order (needed by CPUs that vectorise along dimension 0);
 *                   a squarer patch (WARPN = 8: 4 x 8) means fewer distinct local-memory
 *                   addresses per warp instruction, but on an H200 it measured slower
 *                   (the remapped indices cost registers): a knob for the tuner. WARPN
 *                   divides 32 and NDIMC, and otherwise 32/WARPN divides MDIMC and 32
 *                   divides MDIMC*NDIMC.
 *
 * Local layouts. B is kept as Bs[k][n] (row stride NWG + PAD*VWN). A is kept k-major,
 * As[k][m] (row stride MWG + PAD*VWM), when A is column-major or VWM > 1 (so a run of VWM
 * rows is one vector read); otherwise, for a row-major A and VWM = 1, it is kept as in
 * memory, As[m][k] (row stride KWG + PAD), so the copy is a straight vector copy and the
 * compute reads one value per row (a broadcast across a SIMD row of work-items).
 *
 * Loading pattern (coalescing). Each tile is copied as vectors of VW elements along its
 * direction of contiguity in global memory: along k for a row-major A and a column-major
 * B, along m for a column-major A and along n for a row-major B. Consecutive work-items
 * (in dimension 0, then dimension 1) take consecutive vectors along that direction, so a
 * warp / SIMD row reads one contiguous stretch of each row of the tile: coalesced on a
 * GPU, plain vector loads on a CPU. When a row holds a multiple of NDIMC vectors the
 * mapping is written with get_local_id(0) as the innermost index so that a CPU compiler
 * sees the consecutive addresses directly.
 *
 * Edges (any M, N, K >= 1, no padded copies). Row and column indices of A and B past M or
 * N are clamped to the last row / column, and a vector wholly past the edge along a
 * contiguous row reads the last whole vector within it: the loads stay in bounds, and
 * the values they bring only reach elements of C that are not stored. The K loop covers
 * the full slabs, read without tests; a final partial slab is peeled off after it and reads zeros past K
 * (tests on k inside the loop, even never taken, cost up to 12% on an H200). Stores of C
 * are guarded.
 * NDRange: (ceil(M / MWI), ceil(N / NWI)) rounded up to the work-group, i.e. one
 * work-group per MWG x NWG tile.
 *
 * Work-group order (SWIZZLE > 1): groups are dealt in bands of SWIZZLE tile-rows of C,
 * column by column within a band, instead of row by row, so the groups running at the
 * same time share SWIZZLE panels of A and a few panels of B (read from the L2 cache
 * rather than memory). The launch numbers groups with dimension 0 fastest.
 *
 * Asynchronous copies (ASYNC_STAGES = 2 or 3, DOUBLE_BUFFER = 0): the full slabs go from
 * global to local memory without passing through registers, ASYNC_STAGES local buffers
 * deep: slab t + ASYNC_STAGES - 1 is requested before slab t is computed, and one
 * barrier a slab both publishes the slab that landed and frees the buffer the next
 * request overwrites. On NVIDIA devices (PORTGEMM_PTX) a copy is PTX's cp.async (16, 8
 * or 4 bytes; sm_80 and later), which frees the registers that DOUBLE_BUFFER stages a
 * slab in; elsewhere it is a plain load and store in the same order, so CPU runtimes run
 * (and the tests check) the same pipeline. Runs of a tile that are contiguous on both
 * sides move as vectors of up to 16 bytes (as wide as the leading dimensions allow);
 * transposing ones (a row-major A kept k-major, a column-major B) element by element;
 * vectors past the M or N edge as at the registers' path, one straddling it element by
 * element with the clamped indices. The last,
 * partial slab takes the register path as before.
 *
 * Split-K (KSPLIT > 1): kernels_cl/splitk.h, in runs of whole KWG slabs.
 */
#include "common.h"

/* Each parameter's default (the portable configuration: small enough for any device). */
#ifndef MWG
#define MWG 64           // rows of C per work-group tile
#endif
#ifndef NWG
#define NWG 64           // columns of C per work-group tile
#endif
#ifndef KWG
#define KWG 32           // depth of one K slab staged in local memory
#endif
#ifndef MDIMC
#define MDIMC 16         // work-items along M (OpenCL dimension 1)
#endif
#ifndef NDIMC
#define NDIMC 16         // work-items along N (OpenCL dimension 0)
#endif
#ifndef VW
#define VW 1             // elements per global load (vloadVW): 1, 2, 4 or 8
#endif
#ifndef VWM
#define VWM 1            // a work-item's rows come in runs of VWM, one local vector each
#endif
#ifndef VWN
#define VWN 1            // a work-item's columns come in runs of VWN, one local vector each
#endif
#ifndef PAD
#define PAD 0            // 0/1: pad local rows by one run against bank conflicts
#endif
#ifndef DOUBLE_BUFFER
#define DOUBLE_BUFFER 0  // 0/1: two local buffers, prefetch the next slab, one barrier a slab
#endif
#ifndef KUNROLL
#define KUNROLL 4        // unroll factor of the loop over a slab; divides KWG
#endif
#ifndef WARPN
#define WARPN 16         // 32 work-items take a (32/WARPN) x WARPN patch of C blocks
#endif
#ifndef ASYNC_STAGES
#define ASYNC_STAGES 0   // 0: slabs through registers; 2/3: asynchronous copies, that many buffers
#endif
#ifndef KSPLIT
#define KSPLIT 1         // split-K: K cut into KSPLIT ranges, one per work-group layer
#endif
#ifndef SWIZZLE
#define SWIZZLE 1        // work-groups dealt in bands of SWIZZLE tile-rows (L2 reuse); 1: plain
#endif
#include "splitk.h"


#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define WGS (MDIMC * NDIMC)

/* REALV: vectors of VW for global loads; REALM / REALN: runs of VWM / VWN for compute. */
#if VW == 1
#define REALV REAL
#define VLOADV(p) (*(p))
#define VSTOREV(v, p) (*(p) = (v))
#define GLOADV(p, aligned) (*(p))
#else
#define REALV PG_CAT(REAL, VW)
#define VLOADV(p) PG_CAT(vload, VW)(0, p)
#define VSTOREV(v, p) PG_CAT(vstore, VW)(v, 0, p)
#define GLOADV(p, aligned) ((aligned) ? *(__global const REALV *)(p) : VLOADV(p))
#endif
#if VWM == 1
#define REALM REAL
#define VSTOREM(v, p) (*(p) = (v))
#define LREADM(base, i) ((base)[i])
#else
#define REALM PG_CAT(REAL, VWM)
#define VSTOREM(v, p) PG_CAT(vstore, VWM)(v, 0, p)
#define LREADM(base, i) (*(__local const REALM *)((base) + (i)))
#endif
#if VWN == 1
#define REALN REAL
#define VSTOREN(v, p) (*(p) = (v))
#define VLOADN(p) (*(p))
#define LREADN(base, i) ((base)[i])
#define GSTOREN(v, p, aligned) (*(p) = (v))
#else
#define REALN PG_CAT(REAL, VWN)
#define VSTOREN(v, p) PG_CAT(vstore, VWN)(v, 0, p)
#define VLOADN(p) PG_CAT(vload, VWN)(0, p)
#define LREADN(base, i) (*(__local const REALN *)((base) + (i)))
#define GSTOREN(v, p, aligned)                                                          \
    { if (aligned) *(__global REALN *)(p) = (v); else VSTOREN(v, p); }
#endif
/* LREADM / LREADN read a run from local memory at an index that is a multiple of its
 * width: an aligned vector read (one 64- or 128-bit access on GPUs), or plain indexing at
 * width 1 (a pointer cast there, even a no-op one, costs Intel's CPU vectoriser 2-3x). */

/* Local layouts (see the header). */
#define A_KMAJOR (A_COLMAJOR || VWM > 1)
#if A_KMAJOR
#define LDAS (MWG + PAD * VWM)
#define A_LSIZE (KWG * LDAS)
#else
#define LDAS (KWG + PAD)
#define A_LSIZE (MWG * LDAS)
#endif
#define LDBS (NWG + PAD * VWN)
#define B_LSIZE (KWG * LDBS)
/* Each region starts on a multiple of 8 elements: vector reads of up to 8 stay aligned. */
#define XG_ROUND8(x) (((x) + 7) / 8 * 8)
#define A_LSPAN XG_ROUND8(A_LSIZE)
#define BUF_SPAN (A_LSPAN + XG_ROUND8(B_LSIZE))
#if ASYNC_STAGES
#define XG_BUFFERS ASYNC_STAGES
#else
#define XG_BUFFERS (1 + DOUBLE_BUFFER)
#endif

/* The loaders' view of each tile: CONT elements along the contiguous direction, STRD
 * rows of them; VECS vectors a row; LOADS vectors per work-item. */
#if A_COLMAJOR
#define A_CONT MWG
#define A_STRD KWG
#else
#define A_CONT KWG
#define A_STRD MWG
#endif
#if B_COLMAJOR
#define B_CONT KWG
#define B_STRD NWG
#else
#define B_CONT NWG
#define B_STRD KWG
#endif
#define A_VECS (A_CONT / VW)
#define B_VECS (B_CONT / VW)
#define A_LOADS (A_VECS * A_STRD / WGS)
#define B_LOADS (B_VECS * B_STRD / WGS)

/* Pass p of a loader: row s of the tile and vector v along it for this work-item. */
#if A_VECS % NDIMC == 0
#define A_POS(p, s, v) { const int u_ = (p) * MDIMC + lm;                       \
                         s = u_ / (A_VECS / NDIMC);                             \
                         v = (u_ % (A_VECS / NDIMC)) * NDIMC + ln; }
#else
#define A_POS(p, s, v) { const int l_ = (p) * WGS + tid; s = l_ / A_VECS; v = l_ % A_VECS; }
#endif
#if B_VECS % NDIMC == 0
#define B_POS(p, s, v) { const int u_ = (p) * MDIMC + lm;                       \
                         s = u_ / (B_VECS / NDIMC);                             \
                         v = (u_ % (B_VECS / NDIMC)) * NDIMC + ln; }
#else
#define B_POS(p, s, v) { const int l_ = (p) * WGS + tid; s = l_ / B_VECS; v = l_ % B_VECS; }
#endif

/* VW elements of X contiguous along k: X[o * ld + k ...]; o is already clamped.
 * A full slab reads without tests; a partial one reads zeros at k >= K. */
inline REALV xg_load_kcont(__global const REAL *restrict X, const int ld, const int o,
                           const int k, const int K, const int full, const int aligned)
{
    __global const REAL *p = X + o * ld + k;
    if (full)
        return GLOADV(p, aligned);
    REAL t[VW];
    #pragma unroll
    for (int i = 0; i < VW; ++i)
        t[i] = (k + i < K) ? p[i] : (REAL)0;
    return VLOADV(t);
}

/* Where the VW elements at o along an outer extent O (m or n) are read as one vector:
 * at o where they lie within O; where they lie wholly past it (their values reach only
 * elements of C that are not stored), at the last vector within O that is aligned as o
 * is, so that the work-items past the edge take the same vector load as the rest of
 * their warp rather than VW clamped loads each (xgemm's 64 x 64 tile ran C of 40-200
 * columns over a deep K 1.6-3x slower than wgmma's before, 1.4-1.9x faster since, and
 * ones of 64 or 128 as fast, bench/results/2026-11-27-h100-small-c); -1 where they
 * straddle O or O < VW: element by element. */
inline int xg_vector_start(const int o, const int O)
{
    if (o + VW <= O)
        return o;
    const int start = o - (o - O + 2 * VW - 1) / VW * VW;
    return o >= O && start >= 0 ? start : -1;
}

/* VW elements of X contiguous along the outer dimension (m or n, extent O):
 * X[k * ld + o ...]; o past O reads within O (xg_vector_start) or is clamped; in a
 * partial slab a row k >= K reads zeros. */
inline REALV xg_load_ocont(__global const REAL *restrict X, const int ld, const int o,
                           const int O, const int k, const int K, const int full,
                           const int aligned)
{
    __global const REAL *row = X + (full ? k : min(k, K - 1)) * ld;
    const int start = xg_vector_start(o, O);
    if (start >= 0 && (full || k < K))
        return GLOADV(row + start, aligned);
    REAL t[VW];
    #pragma unroll
    for (int i = 0; i < VW; ++i)
        t[i] = (full || k < K) ? row[min(o + i, O - 1)] : (REAL)0;
    return VLOADV(t);
}

/* Scatter a vector of VW elements down a column of a local tile (stride ld). */
inline void xg_store_transposed(const REALV v, __local REAL *p, const int ld)
{
    REAL t[VW];
    VSTOREV(v, t);
    #pragma unroll
    for (int i = 0; i < VW; ++i)
        p[i * ld] = t[i];
}

/* The tile slab starting at k0 from global memory into registers ra, rb. FULL is a
 * literal: 1 for a slab wholly inside K (no tests on k), 0 for the last, partial one. */
#define XG_LOAD_GLOBAL(k0, FULL)                                                         \
    {                                                                                    \
        _Pragma("unroll")                                                                \
        for (int p = 0; p < A_LOADS; ++p) {                                              \
            int s, v;                                                                    \
            A_POS(p, s, v);                                                              \
            if (A_COLMAJOR)                                                              \
                ra[p] = xg_load_ocont(A, lda, m0 + v * VW, M, (k0) + s, K, FULL,         \
                                      a_aligned);                                        \
            else                                                                         \
                ra[p] = xg_load_kcont(A, lda, min(m0 + s, M - 1), (k0) + v * VW, K,      \
                                      FULL, a_aligned);                                  \
        }                                                                                \
        _Pragma("unroll")                                                                \
        for (int p = 0; p < B_LOADS; ++p) {                                              \
            int s, v;                                                                    \
            B_POS(p, s, v);                                                              \
            if (B_COLMAJOR)                                                              \
                rb[p] = xg_load_kcont(B, ldb, min(n0 + s, N - 1), (k0) + v * VW, K,      \
                                      FULL, b_aligned);                                  \
            else                                                                         \
                rb[p] = xg_load_ocont(B, ldb, n0 + v * VW, N, (k0) + s, K, FULL,         \
                                      b_aligned);                                        \
        }                                                                                \
    }

/* Registers ra, rb into the local buffer at lbuf. */
#define XG_STORE_LOCAL(lbuf)                                                             \
    {                                                                                    \
        __local REAL *as_ = (lbuf);                                                      \
        __local REAL *bs_ = (lbuf) + A_LSPAN;                                            \
        _Pragma("unroll")                                                                \
        for (int p = 0; p < A_LOADS; ++p) {                                              \
            int s, v;                                                                    \
            A_POS(p, s, v);                                                              \
            if (A_COLMAJOR || !A_KMAJOR) /* straight copy: row s, vector v */            \
                VSTOREV(ra[p], as_ + s * LDAS + v * VW);                                 \
            else /* row-major A into As[k][m]: column s, rows v*VW.. */                  \
                xg_store_transposed(ra[p], as_ + v * VW * LDAS + s, LDAS);               \
        }                                                                                \
        _Pragma("unroll")                                                                \
        for (int p = 0; p < B_LOADS; ++p) {                                              \
            int s, v;                                                                    \
            B_POS(p, s, v);                                                              \
            if (B_COLMAJOR) /* column s of Bs, rows v*VW.. */                            \
                xg_store_transposed(rb[p], bs_ + v * VW * LDBS + s, LDBS);               \
            else                                                                         \
                VSTOREV(rb[p], bs_ + s * LDBS + v * VW);                                 \
        }                                                                                \
    }

#if ASYNC_STAGES
/* cp.async (or plain copies off NVIDIA), CP_ASYNC_COMMIT and CP_ASYNC_WAIT_OLDER */
#include "async_copy.h"

/* The widest copy (elements) a run of VW of a straight-copied tile is cut into: at most
 * 16 bytes, dividing VW and the local row stride (so every piece stays aligned). */
#define XG_STRAIGHT_A (A_COLMAJOR || !A_KMAJOR)
#if XG_STRAIGHT_A && LDAS % 4 == 0 && VW % 4 == 0 && CP_REAL_BYTES == 4
#define A_PIECE 4
#elif XG_STRAIGHT_A && LDAS % 2 == 0 && VW % 2 == 0
#define A_PIECE 2
#else
#define A_PIECE 1
#endif
#if !B_COLMAJOR && LDBS % 4 == 0 && VW % 4 == 0 && CP_REAL_BYTES == 4
#define B_PIECE 4
#elif !B_COLMAJOR && LDBS % 2 == 0 && VW % 2 == 0
#define B_PIECE 2
#else
#define B_PIECE 1
#endif
#define XG_CP_PIECE(P, dst, src) PG_CAT(CP_ASYNC_, PG_CAT(XG_BYTES_, P))(dst, src)
#if CP_REAL_BYTES == 4
#define XG_BYTES_1 4
#define XG_BYTES_2 8
#define XG_BYTES_4 16
#else
#define XG_BYTES_1 8
#define XG_BYTES_2 16
#endif

/* VW contiguous elements at src into dst: in pieces of P when the global side is
 * aligned (a uniform test: the leading dimension decides), else one by one. */
#define XG_ASYNC_RUN(P, dst, src, aligned)                                               \
    {                                                                                    \
        if (aligned) {                                                                   \
            _Pragma("unroll")                                                            \
            for (int j_ = 0; j_ < VW; j_ += (P))                                         \
                XG_CP_PIECE(P, (dst) + j_, (src) + j_);                                  \
        } else {                                                                         \
            _Pragma("unroll")                                                            \
            for (int j_ = 0; j_ < VW; ++j_)                                              \
                CP_ASYNC_ONE((dst) + j_, (src) + j_);                                    \
        }                                                                                \
    }
/* The same along the outer dimension (extent O) from row: past O, a vector within O
 * (xg_vector_start) or clamped elements. */
#define XG_ASYNC_OUTER(P, dst, row, o, O, aligned)                                       \
    {                                                                                    \
        const int start_ = xg_vector_start(o, O);                                        \
        if (start_ >= 0) {                                                               \
            XG_ASYNC_RUN(P, dst, (row) + start_, aligned);                               \
        } else {                                                                         \
            _Pragma("unroll")                                                            \
            for (int j_ = 0; j_ < VW; ++j_)                                              \
                CP_ASYNC_ONE((dst) + j_, (row) + min((o) + j_, (O) - 1));                \
        }                                                                                \
    }

/* Request the full slab at k0 into the local buffer at lbuf (not waited for). */
#define XG_ASYNC_LOAD(k0, lbuf)                                                          \
    {                                                                                    \
        __local REAL *as_ = (lbuf);                                                      \
        __local REAL *bs_ = (lbuf) + A_LSPAN;                                            \
        _Pragma("unroll")                                                                \
        for (int p = 0; p < A_LOADS; ++p) {                                              \
            int s, v;                                                                    \
            A_POS(p, s, v);                                                              \
            if (A_COLMAJOR) { /* As[k][m]: row s of the slab, m from v*VW */             \
                XG_ASYNC_OUTER(A_PIECE, as_ + s * LDAS + v * VW,                         \
                               A + (long)((k0) + s) * lda, m0 + v * VW, M, a_aligned);   \
            } else {                                                                     \
                __global const REAL *src_ = A + (long)min(m0 + s, M - 1) * lda           \
                                            + (k0) + v * VW;                             \
                if (!A_KMAJOR) { /* As[m][k]: a straight copy */                         \
                    XG_ASYNC_RUN(A_PIECE, as_ + s * LDAS + v * VW, src_, a_aligned);     \
                } else { /* As[k][m]: down a column */                                   \
                    _Pragma("unroll")                                                    \
                    for (int j_ = 0; j_ < VW; ++j_)                                      \
                        CP_ASYNC_ONE(as_ + (v * VW + j_) * LDAS + s, src_ + j_);         \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        _Pragma("unroll")                                                                \
        for (int p = 0; p < B_LOADS; ++p) {                                              \
            int s, v;                                                                    \
            B_POS(p, s, v);                                                              \
            if (B_COLMAJOR) { /* column s of Bs, rows from v*VW */                       \
                __global const REAL *src_ = B + (long)min(n0 + s, N - 1) * ldb           \
                                            + (k0) + v * VW;                             \
                _Pragma("unroll")                                                        \
                for (int j_ = 0; j_ < VW; ++j_)                                          \
                    CP_ASYNC_ONE(bs_ + (v * VW + j_) * LDBS + s, src_ + j_);             \
            } else {                                                                     \
                XG_ASYNC_OUTER(B_PIECE, bs_ + s * LDBS + v * VW,                         \
                               B + (long)((k0) + s) * ldb, n0 + v * VW, N, b_aligned);   \
            }                                                                            \
        }                                                                                \
    }
#endif

/* acc += the slab held in the local buffer at lbuf. */
#define XG_COMPUTE(lbuf)                                                                 \
    {                                                                                    \
        __local const REAL *as_ = (lbuf);                                                \
        __local const REAL *bs_ = (lbuf) + A_LSPAN;                                      \
        for (int kb = 0; kb < KWG; kb += KUNROLL) {                                      \
            _Pragma("unroll")                                                            \
            for (int ku = 0; ku < KUNROLL; ++ku) {                                       \
                const int k = kb + ku;                                                   \
                REAL a[MWI], b[NWI];                                                     \
                _Pragma("unroll")                                                        \
                for (int r = 0; r < MWI / VWM; ++r) {                                    \
                    if (A_KMAJOR) {                                                      \
                        VSTOREM(LREADM(as_, k * LDAS + r * (MDIMC * VWM) + tm * VWM),    \
                                a + r * VWM);                                            \
                    } else { /* VWM == 1 */                                              \
                        a[r] = as_[(r * MDIMC + tm) * LDAS + k];                         \
                    }                                                                    \
                }                                                                        \
                _Pragma("unroll")                                                        \
                for (int r = 0; r < NWI / VWN; ++r)                                      \
                    VSTOREN(LREADN(bs_, k * LDBS + r * (NDIMC * VWN) + tn * VWN),        \
                            b + r * VWN);                                                \
                _Pragma("unroll")                                                        \
                for (int i = 0; i < MWI; ++i)                                            \
                    _Pragma("unroll")                                                    \
                    for (int j = 0; j < NWI; ++j)                                        \
                        acc[i][j] = MAD(a[i], b[j], acc[i][j]);                          \
            }                                                                            \
        }                                                                                \
    }

__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void gemm(SPLIT_GEMM_ARGS)
{
    SPLIT_K(KWG);
    /* lm, ln, tid: the work-item as the hardware numbers it (the loaders use these, so
     * consecutive work-items read consecutive addresses). tm, tn: the work-item's place
     * in the grid of MWI x NWI blocks of C, dealt out in blocks of 32 work-items shaped
     * (32 / WARPN) x WARPN (see the header); the identity when WARPN = min(NDIMC, 32). */
    const int ln = get_local_id(0);
    const int lm = get_local_id(1);
    const int tid = lm * NDIMC + ln;
#if WARPN == NDIMC || (WARPN == 32 && NDIMC % 32 == 0)
    const int tn = ln;
    const int tm = lm;
#else
    const int tm = (tid / 32) / (NDIMC / WARPN) * (32 / WARPN) + (tid % 32) / WARPN;
    const int tn = (tid / 32) % (NDIMC / WARPN) * WARPN + (tid % 32) % WARPN;
#endif
#if SWIZZLE > 1
    const int groups_n = get_num_groups(0);
    const int launched = get_group_id(1) * groups_n + get_group_id(0);
    const int band = SWIZZLE * groups_n;
    const int first_m = launched / band * SWIZZLE;
    const int band_rows = min((int)get_num_groups(1) - first_m, SWIZZLE);
    const int m0 = (first_m + launched % band % band_rows) * MWG;
    const int n0 = (launched % band / band_rows) * NWG;
#else
    const int n0 = get_group_id(0) * NWG;
    const int m0 = get_group_id(1) * MWG;
#endif
    /* Aligned vector loads are safe when every vector starts on a multiple of VW
     * elements: tiles start on multiples of VW, so the leading dimension decides. */
    const int a_aligned = (lda % VW) == 0;
    const int b_aligned = (ldb % VW) == 0;

    __local PG_CAT(REAL, 8) lmem_[XG_BUFFERS * BUF_SPAN / 8];
    __local REAL *lmem = (__local REAL *)lmem_;

    REAL acc[MWI][NWI];
    #pragma unroll
    for (int i = 0; i < MWI; ++i)
        #pragma unroll
        for (int j = 0; j < NWI; ++j)
            acc[i][j] = 0;

    /* The K loop runs over the full slabs with untested loads; a last, partial slab
     * (K % KWG != 0) is peeled off after it, so its tests stay out of the main loop. */
    REALV ra[A_LOADS], rb[B_LOADS];
    const int full_slabs = K / KWG;
#if ASYNC_STAGES
    /* slab t in buffer t % ASYNC_STAGES, requested ASYNC_STAGES - 1 ahead (async_copy.h) */
#define XG_REQUEST(t, buffer) XG_ASYNC_LOAD((t) * KWG, lmem + (buffer) * BUF_SPAN)
#define XG_COMPUTE_BUFFER(buffer) XG_COMPUTE(lmem + (buffer) * BUF_SPAN)
    CP_ASYNC_PIPELINE(full_slabs, XG_REQUEST, XG_COMPUTE_BUFFER, CP_NOTHING);
    CP_ASYNC_WAIT_ALL();
    barrier(CLK_LOCAL_MEM_FENCE);  /* before the partial slab reuses a buffer */
    __local REAL *last = lmem + (full_slabs % ASYNC_STAGES) * BUF_SPAN;
#elif DOUBLE_BUFFER
    if (full_slabs > 0) {
        XG_LOAD_GLOBAL(0, 1);
        XG_STORE_LOCAL(lmem);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < full_slabs; ++t) {
        __local REAL *cur = lmem + (t & 1) * BUF_SPAN;
        const int more = t + 1 < full_slabs;
        if (more)
            XG_LOAD_GLOBAL((t + 1) * KWG, 1);
        XG_COMPUTE(cur);
        if (more)
            XG_STORE_LOCAL(lmem + ((t + 1) & 1) * BUF_SPAN);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* After the loop every work-item is past its last read of both buffers. */
    __local REAL *last = lmem + (full_slabs & 1) * BUF_SPAN;
#else
    for (int t = 0; t < full_slabs; ++t) {
        XG_LOAD_GLOBAL(t * KWG, 1);
        XG_STORE_LOCAL(lmem);
        barrier(CLK_LOCAL_MEM_FENCE);
        XG_COMPUTE(lmem);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    __local REAL *last = lmem;
#endif
    if (full_slabs * KWG < K) {
        XG_LOAD_GLOBAL(full_slabs * KWG, 0);
        XG_STORE_LOCAL(last);
        barrier(CLK_LOCAL_MEM_FENCE);
        XG_COMPUTE(last);
    }

    /* Store C: run r of VWN columns starts at n0 + r*NDIMC*VWN + tn*VWN. */
    const int c_aligned = (ldc % VWN) == 0;
    #pragma unroll
    for (int i = 0; i < MWI; ++i) {
        const int row = m0 + (i / VWM) * (MDIMC * VWM) + tm * VWM + i % VWM;
        if (row < M) {
            #pragma unroll
            for (int r = 0; r < NWI / VWN; ++r) {
                const int col = n0 + r * (NDIMC * VWN) + tn * VWN;
                __global REAL *c = C + row * ldc + col;
                if (col + VWN <= N) {
                    GSTOREN(VLOADN(&acc[i][r * VWN]), c, c_aligned);
                } else {
                    #pragma unroll
                    for (int e = 0; e < VWN; ++e)
                        if (col + e < N)
                            c[e] = acc[i][r * VWN + e];
                }
            }
        }
    }
}
