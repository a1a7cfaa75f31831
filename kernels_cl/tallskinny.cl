/* tallskinny: C = A * B for small M, N and a deep K, at the speed of reading A and B once.
 *
 * Each work-item keeps a whole TM x TN tile of C in registers. Work-group g of a tile
 * takes the g-th of GS contiguous runs of K and its work-item l the values k = start + l,
 * start + l + BS, ...: neighbouring work-items read neighbouring addresses of each row of
 * A and of B (coalesced on a GPU, one SIMD load on a CPU), and each group (each CPU
 * core) streams a region of its own. Each input element is read once per tile.
 *
 * The work-group then sums its work-items' tiles (REDUCE) and writes one partial tile
 * into slice g of the workspace W (GS slices of M x N):
 *   REDUCE 0: a tree in local memory, RCH accumulators at a time (log2 BS barriers each);
 *   REDUCE 1: a butterfly across each run of 32 work-items that halves the values each
 *     keeps at every step (reduce-scatter: 31 exchanges for a 64-value tile, where a
 *     tree per value takes 320), then one barrier and a sum over the runs. An exchange is
 *     PTX's shfl.sync on NVIDIA (PORTGEMM_PTX; a run of 32 is a warp there) and goes
 *     through local memory elsewhere, so the CPU tests check the same arithmetic.
 * The GS slices are added into C in a fixed order:
 *   FUSE 0: by kernels_cl/reduce.cl's sum_slices, a second launch;
 *   FUSE 1: by the last work-group to finish a tile, which it learns from an integer
 *     ticket counter per tile (Z, zero before the launch and left zero after it).
 * No float atomics either way: the same inputs give bit-for-bit the same C on every run.
 *
 * When M or N exceed TM or TN, C is cut into T = ceil(M/TM) * ceil(N/TN) tiles. A
 * work-group holds TG of them (TG divides T), in blocks of BS work-items over the same
 * run of K, so the TG tiles read each stretch of A and B through one compute unit's
 * cache: on a GPU, separate groups per tile (TG = 1) re-read it from the shared L2 once
 * per tile, as much L2 traffic as T / 2 times the memory's for 16 x 16 in tiles of 8 x 8.
 * The T / TG groups of one K range are numbered consecutively (group index
 * = g * T / TG + tile group), so where TG < T they still run side by side.
 *
 * Where a run of a tile's values lies whole and aligned in memory (a row of a row-major
 * B, a column of a column-major A: TN or TM a multiple of WIDTH, the pointer and leading
 * dimension aligned, which the kernel checks once), a work-item reads it as vectors: one
 * 16-byte load instead of WIDTH loads that each touch a different cache sector when the
 * neighbouring work-items' runs lie a row apart.
 * ROWVEC 1 (a CPU's form; BS = 1): the work-item walks its run of K one step at a time
 * and holds each row of its tile as RV vectors of VN values, so a step is RV vector loads
 * of B's row (a row-major B) and TM broadcasts of A times them, in KU independent sums;
 * where B's columns lie along K as A's rows do, sums of 16 steps a vector along K
 * instead, a block of up to 4 x 4 of the tile at a time (accumulate_along_k). Several
 * vectors a row (a wide C) read RV * 64 bytes of each row of B where one read 64: CPU
 * prefetchers follow the longer runs.
 * FLAT 1 (ROWVEC, a row-major B whose rows are the tile's TN = N columns, TN not a
 * multiple of 16): FS rows of B lie as FV whole vectors of 16 values, which a block of FS
 * steps multiplies by A's FS values of each row of the tile, each repeated TN times (a
 * shuffle), into FV vectors of sums a row; each lane's column is fixed, and the lanes
 * are added into C's columns at the end. A row of two columns is then 16 lanes of work
 * where the row vector held 2.
 * The CPU runtimes' own vectorising across work-items (ROWVEC 0, BS a SIMD width) must
 * load B's rows across the lanes instead, a gather for every row of the tile.
 * NDRange: GS * T / TG work-groups of BS * TG work-items (one dimension); any M, N, K >= 1.
 * STACKED (one group along K, or FUSE 1): a third dimension of one layer a product.
 */
#include "common.h"

#ifndef BS
#define BS 256      // work-items per work-group, a power of two
#endif
#ifndef TM
#define TM 8        // rows of C a work-item accumulates
#endif
#ifndef TN
#define TN 8        // columns of C a work-item accumulates
#endif
#ifndef RCH
#define RCH 8       // REDUCE 0: accumulators summed across the group per round; divides TM*TN
#endif
#ifndef REDUCE
#define REDUCE 0    // how a work-group sums its tiles: 0 a tree, 1 a butterfly (BS >= 32)
#endif
#ifndef FUSE
#define FUSE 0      // 1: the last work-group of a tile sums the slices (no second launch)
#endif
#ifndef TG
#define TG 1        // tiles of C a work-group holds, each in a block of BS work-items
#endif
#ifndef KU
#define KU 1        // steps of K whose loads a work-item issues before their products
#endif
#ifndef ROWVEC
#define ROWVEC 0    // 1: each row of the tile one vector, K walked step by step (BS = 1)
#endif
#ifndef VN
#define VN 8        // ROWVEC: the vector's width, TN rounded up to 1, 2, 4, 8 or 16
#endif
#ifndef RV
#define RV 1        // ROWVEC: vectors a row of the tile (VN = 16 where RV > 1)
#endif
#ifndef FLAT
#define FLAT 0      // ROWVEC: 1: FS rows of a row-major B of TN (= N) columns as FV vectors
#endif
#ifndef FS
#define FS 2        // FLAT: steps of K a block (16 / gcd(TN, 16)), 2, 4, 8 or 16
#endif
#ifndef FV
#define FV 1        // FLAT: vectors of 16 values a block (TN / gcd(TN, 16))
#endif

#if USE_FP64
#define WIDE double2  /* a 16-byte vector of REAL */
#define WIDTH 2
#define WIDE_STORE vstore2
#else
#define WIDE float4
#define WIDTH 4
#define WIDE_STORE vstore4
#endif

#define QN (TM * TN)  // accumulators per work-item
#define LANES 32      // a run of work-items that exchange values (REDUCE 1)
/* REDUCE 1 keeps QP values, QN padded so the halvings come out even: a power of two up
 * to LANES, a multiple of LANES beyond. */
#if QN >= LANES
#define QP ((QN + LANES - 1) / LANES * LANES)
#else
#define QP (QN <= 1 ? 1 : QN <= 2 ? 2 : QN <= 4 ? 4 : QN <= 8 ? 8 : QN <= 16 ? 16 : 32)
#endif

#if REDUCE && PORTGEMM_PTX
/* x from the work-item whose lane differs by the bits of d, within the warp */
inline float lane_xor_f(float x, int d) {
    uint out;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(out) : "r"(as_uint(x)), "r"(d));
    return as_float(out);
}
#if USE_FP64
inline double lane_xor(double x, int d) {
    const float2 halves = as_float2(x);
    return as_double((float2)(lane_xor_f(halves.x, d), lane_xor_f(halves.y, d)));
}
#else
#define lane_xor(x, d) lane_xor_f(x, d)
#endif
#define LANE_XOR(x, d) lane_xor(x, d)
#elif REDUCE
/* the same exchange through local memory: every work-item of the group takes part */
inline REAL lane_xor_local(REAL x, int d, __local REAL *swap, int lid) {
    barrier(CLK_LOCAL_MEM_FENCE);  /* the last exchange's reads are done */
    swap[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    return swap[lid ^ d];
}
#define LANE_XOR(x, d) lane_xor_local(x, d, swap, lid)
#endif

#if FUSE
/* The tile's ticket, taken by one work-item of the group after a barrier that follows
 * the group's writes of its slice: the value before this group's count. Taking it
 * publishes those writes to the group that counts last, and that group sees every
 * other's (the barrier carries the order to and from the group's other work-items). */
inline int take_ticket(__global int *ticket)
{
#if PORTGEMM_PTX && PORTGEMM_SM >= 70
    /* one acquire-release atomic in place of two fences: at K = 2^21 on the H100,
     * 1-5% faster than a fence by each work-item before the barrier and by the last
     * group after the ticket (bench/results/2026-11-27-h100-short-k) */
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
                 : "=r"(old) : "l"(ticket) : "memory");
    return old;
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    const int old = atomic_inc(ticket);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    return old;
#endif
}
#endif

/* The block's sum of every work-item's acc[q], for q < QN, into tile[q] (local; tile and
 * the scratch arrays are the block's own, sid its work-item's place in it). */
#if REDUCE
inline void group_sum(REAL *acc, __local REAL *tile, __local REAL *runs,
                      __local REAL *swap, const int lid, const int sid)
{
    REAL v[QP];
    #pragma unroll
    for (int q = 0; q < QP; ++q)
        v[q] = q < QN ? acc[q] : 0;
#if LANES != 32
#error "the butterfly below is spelled out for runs of 32"
#endif
    /* At distance d the work-item keeps the upper half of its values if bit d of its lane
     * is set, the lower half if not, and adds its partner's copy of the half it keeps.
     * Once one value is left, the steps left add the partner's value: both then hold it.
     * Each step is spelled out with its count fixed by the preprocessor, so no barrier of
     * the exchange through local memory sits under a condition that only unrolling would
     * make uniform (PoCL 5 still gets this form wrong: docs/known-issues.md). */
    const int lane = lid % LANES;
    int base = 0;     /* the first output index this work-item still holds */
#define HALVE(d, kept) {                                                                  \
        const bool upper = (lane & (d)) != 0;                                             \
        _Pragma("unroll")                                                                 \
        for (int q = 0; q < (kept); ++q) {                                                \
            const REAL give = upper ? v[q] : v[q + (kept)];                              \
            const REAL keep = upper ? v[q + (kept)] : v[q];                              \
            v[q] = keep + LANE_XOR(give, d);                                              \
        }                                                                                 \
        base += upper ? (kept) : 0; }
#define ADD(d) v[0] += LANE_XOR(v[0], d);
#if QP >= 2
    HALVE(16, QP / 2)
#else
    ADD(16)
#endif
#if QP >= 4
    HALVE(8, QP / 4)
#else
    ADD(8)
#endif
#if QP >= 8
    HALVE(4, QP / 8)
#else
    ADD(4)
#endif
#if QP >= 16
    HALVE(2, QP / 16)
#else
    ADD(2)
#endif
#if QP >= 32
    HALVE(1, QP / 32)
#else
    ADD(1)
#endif
#undef HALVE
#undef ADD
    const int count = QP >= LANES ? QP / LANES : 1;  /* values left to this work-item */
    /* lanes holding a duplicate (a step that added rather than halved) stay quiet */
    const bool writer = (lane & (LANES / min(QP, LANES) - 1)) == 0;
    if (writer) {
        #pragma unroll
        for (int q = 0; q < QP / LANES + 1; ++q)
            if (q < count && base + q < QN)
                runs[(sid / LANES) * QN + base + q] = v[q];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = sid; q < QN; q += BS) {
        REAL s = 0;
        for (int r = 0; r < BS / LANES; ++r)
            s += runs[r * QN + q];
        tile[q] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#else
inline void group_sum(REAL *acc, __local REAL *tile, __local REAL *sums, const int sid)
{
    #pragma unroll
    for (int q0 = 0; q0 < QN; q0 += RCH) {
        #pragma unroll
        for (int r = 0; r < RCH; ++r)
            sums[r * BS + sid] = acc[q0 + r];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = BS / 2; s > 0; s >>= 1) {
            if (sid < s) {
                #pragma unroll
                for (int r = 0; r < RCH; ++r)
                    sums[r * BS + sid] += sums[r * BS + sid + s];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (int r = sid; r < RCH; r += BS)  /* RCH may exceed BS */
            tile[q0 + r] = sums[r * BS];
        barrier(CLK_LOCAL_MEM_FENCE);  /* sums[] is reused by the next round */
    }
}
#endif

#if FUSE
#if PORTGEMM_PTX && PORTGEMM_SM >= 70
/* Another group's slice value, as the L2 cache holds it (a relaxed load at GPU scope).
 * Volatile loads (strong at system scope) took about 0.5 us each on the H200, as if one
 * after another (bench/results/2026-11-22-h200-deep-wgmma). */
inline REAL slice_value(__global const REAL *p)
{
    REAL v;
#if USE_FP64
    asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(p) : "memory");
#else
    asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
#endif
    return v;
}
#else
#define slice_value(p) (*(volatile __global const REAL *)(p))
#endif
/* slice values loaded before they are added (in order): 8 where a work-item adds many
 * (GS QN / BS of them; GS near a GPU's 132 SMs); one at a time for small tiles, whose
 * kernels ran up to 35% slower with the batch (bench/results/2026-11-22-h200-deep-wgmma) */
#define SLICE_BATCH (16 * QN >= BS ? 8 : 1)

/* The last group of a tile adds the GS slices of W into C (a block its own tile, sid its
 * work-item's place in the block, parts its own): PARTS work-items per value,
 * each over every PARTS-th slice, then the parts in order; fixed order, whichever group
 * is last. W is read past this compute unit's cache (slice_value): other groups wrote
 * it. Every group calls it (only the last one reads and writes), so its barrier is
 * reached by all work-items unconditionally. */
#define PARTS (BS >= QN ? BS / QN : 1)
inline void sum_tile_slices(const bool last, const int M, const int N, const int m0,
                            const int n0, const int groups, __global const REAL *W,
                            __global REAL *C, const int ldc, __local REAL *parts,
                            const int sid)
{
    for (int slot = sid; slot < PARTS * QN; slot += BS) {
        const int q = slot % QN;
        const int i = m0 + q / TN;
        const int j = n0 + q % TN;
        __global const REAL *w = W + (long)i * N + j;
        const long slice = (long)M * N;
        REAL s = 0;
        if (last && i < M && j < N) {
            int g = slot / QN;
            /* the last batch masked past the last slice. Loaded one at a time, the
             * slices left over each waited for the one before, and ptxas built 9 x 9's
             * main loop with three loads after the first products: 6% slower on the
             * H100; 7 x 7 and 8 x 8 are 1-2% faster that way
             * (bench/results/2026-11-28-tall-forms) */
            for (; g < groups; g += SLICE_BATCH * PARTS) {
                REAL v[SLICE_BATCH];
                #pragma unroll
                for (int u = 0; u < SLICE_BATCH; ++u)
                    v[u] = g + u * PARTS < groups ? slice_value(w + (g + u * PARTS) * slice) : 0;
                #pragma unroll
                for (int u = 0; u < SLICE_BATCH; ++u)
                    s += v[u];
            }
        }
        parts[slot] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = sid; q < QN; q += BS) {
        const int i = m0 + q / TN;
        const int j = n0 + q % TN;
        if (last && i < M && j < N) {
            REAL s = 0;
            for (int p = 0; p < PARTS; ++p)
                s += parts[p * QN + q];
            C[(long)i * ldc + j] = s;
        }
    }
}
#endif

/* COUNT values into out[]: as WIDE vectors from START when wide, else VALUE(i) each */
#define READ_RUN(out, COUNT, wide, START, VALUE)                                        \
    if (wide) {                                                                         \
        __global const WIDE *run_ = (__global const WIDE *)(START);                     \
        _Pragma("unroll")                                                               \
        for (int v_ = 0; v_ < (COUNT) / WIDTH; ++v_)                                    \
            WIDE_STORE(run_[v_], v_, out);                                              \
    } else {                                                                            \
        _Pragma("unroll")                                                               \
        for (int i_ = 0; i_ < (COUNT); ++i_)                                            \
            out[i_] = VALUE(i_);                                                        \
    }
#define A_OF_ROW(y) A_AT(rows[y], k)  // the step's value of A in the tile's row y
#define B_OF_COL(x) B_AT(k, cols[x])  // the step's value of B in the tile's column x

/* One step's values at k: the tile's TM values of A and TN of B. wide_a (wide_b): they
 * lie whole and aligned in memory and are read as WIDE vectors; else one by one, clamped
 * to the matrix (rows[], cols[]). */
inline void load_step(REAL *a, REAL *b, const int k,
                      __global const REAL *restrict A, const int lda, const int *rows,
                      const bool wide_a,
                      __global const REAL *restrict B, const int ldb, const int *cols,
                      const bool wide_b)
{
    READ_RUN(a, TM, wide_a, A + k * lda + rows[0], A_OF_ROW)
    READ_RUN(b, TN, wide_b, B + k * ldb + cols[0], B_OF_COL)
}

inline void add_products(REAL *acc, const REAL *a, const REAL *b)
{
    #pragma unroll
    for (int y = 0; y < TM; ++y)
        #pragma unroll
        for (int x = 0; x < TN; ++x)
            acc[y * TN + x] = MAD(a[y], b[x], acc[y * TN + x]);
}

/* acc += a[y] * b[x] over the work-item's steps k, k + BS, ... < k_end, KU steps' loads
 * issued before their products (in step order: the sums do not depend on KU). Callers
 * pass wide_a and wide_b as constants, so each form compiles into loops of its own. */
inline void accumulate(REAL *acc, int k, const int k_end,
                       __global const REAL *restrict A, const int lda, const int *rows,
                       const bool wide_a,
                       __global const REAL *restrict B, const int ldb, const int *cols,
                       const bool wide_b)
{
    for (; k + (KU - 1) * BS < k_end; k += KU * BS) {
        REAL a[KU][TM], b[KU][TN];
        #pragma unroll
        for (int u = 0; u < KU; ++u)
            load_step(a[u], b[u], k + u * BS, A, lda, rows, wide_a, B, ldb, cols, wide_b);
        #pragma unroll
        for (int u = 0; u < KU; ++u)
            add_products(acc, a[u], b[u]);
    }
#if KU > 1
    for (; k < k_end; k += BS) {
        REAL a[TM], b[TN];
        load_step(a, b, k, A, lda, rows, wide_a, B, ldb, cols, wide_b);
        add_products(acc, a, b);
    }
#endif
}

#if ROWVEC
#if VN == 1
#define ROW REAL
#define LOAD_ROW(p) (*(p))
#define STORE_ROW(v, p) (*(p) = (v))
#else
#define ROW PG_CAT(REAL, VN)
#define LOAD_ROW(p) PG_CAT(vload, VN)(0, p)
#define STORE_ROW(v, p) PG_CAT(vstore, VN)(v, 0, p)
#endif
#define KRUN 16          // steps of K a vector holds where B's columns lie along K
#define KRUN_SUMS 16     // vectors of sums a work-item holds there
#define ROW_CHUNK 1024   // steps summed in sequence before they join the run's total
#define RUN PG_CAT(REAL, KRUN)
inline REAL lanes_sum(const RUN v)
{
    const PG_CAT(REAL, 8) eight = v.lo + v.hi;
    const PG_CAT(REAL, 4) four = eight.lo + eight.hi;
    const REAL2 two = four.lo + four.hi;
    return two.x + two.y;
}
/* A vector of VN lanes built from V(0), ..., V(VN - 1) in registers (a vector loaded from
 * values just stored to a private array waits on the stores) */
#define LANES_2(V) V(0), V(1)
#define LANES_4(V) LANES_2(V), V(2), V(3)
#define LANES_8(V) LANES_4(V), V(4), V(5), V(6), V(7)
#define LANES_16(V) LANES_8(V), V(8), V(9), V(10), V(11), V(12), V(13), V(14), V(15)
#if VN == 1
#define BUILD_ROW(V) V(0)
#else
#define BUILD_ROW(V) ((ROW)(PG_CAT(LANES_, VN)(V)))
#endif

/* A chunk's KU sums of each row's n vectors: set to zero, and added in order into the
 * run's total (the rows' form and FLAT alike; unrolled, so the sums stay in registers) */
#define CLEAR_SUMS(sum, n)                                                                 \
    _Pragma("unroll") for (int u = 0; u < KU; ++u)                                         \
        _Pragma("unroll") for (int y = 0; y < TM; ++y)                                     \
            _Pragma("unroll") for (int v = 0; v < (n); ++v)                                \
                sum[u][y][v] = 0
#define FOLD_SUMS(sum, total, n)                                                           \
    _Pragma("unroll") for (int y = 0; y < TM; ++y)                                         \
        _Pragma("unroll") for (int v = 0; v < (n); ++v) {                                  \
            _Pragma("unroll") for (int u = 1; u < KU; ++u)                                 \
                sum[0][y][v] += sum[u][y][v];                                              \
            total[y][v] += sum[0][y][v];                                                   \
        }

/* sum[y] += A(y, k) b for each row y of the tile: one step of K, B's row b RV vectors */
inline void add_row_products(ROW sum[TM][RV], const ROW *b, __global const REAL *restrict A,
                             const int lda, const int *rows, const int k)
{
    #pragma unroll
    for (int y = 0; y < TM; ++y) {
        const ROW a = (ROW)(A_AT(rows[y], k));
        #pragma unroll
        for (int v = 0; v < RV; ++v)
            sum[y][v] = MAD(a, b[v], sum[y][v]);
    }
}

/* The tile's part of B's row k as RV vectors, lanes past TN included */
inline void load_row(ROW *b, __global const REAL *restrict B, const int ldb, const int n0,
                     const int k)
{
    #pragma unroll
    for (int v = 0; v < RV; ++v)
        b[v] = LOAD_ROW(B + k * ldb + n0 + v * VN);
}

/* sum[u][y] += A(y, k) B(k, x) over k < k_end one step at a time, each row y of the tile
 * RV vectors, in KU sums of every KU-th step (independent chains of additions). Steps
 * below vector_end load the tile's row of B as RV vectors of VN values, lanes past TN
 * included (read from the rest of the row or the start of the next, never stored); the
 * others value by value. */
inline void add_chunk_rows(ROW sum[KU][TM][RV], int k, const int vector_end, const int k_end,
                           __global const REAL *restrict A, const int lda, const int *rows,
                           __global const REAL *restrict B, const int ldb, const int n0,
                           const int *cols)
{
    for (; k + KU <= vector_end; k += KU) {
        ROW b[KU][RV];
        #pragma unroll
        for (int u = 0; u < KU; ++u)
            load_row(b[u], B, ldb, n0, k + u);
        #pragma unroll
        for (int u = 0; u < KU; ++u)
            add_row_products(sum[u], b[u], A, lda, rows, k + u);
    }
    for (; k < vector_end; ++k) {
        ROW b[RV];
        load_row(b, B, ldb, n0, k);
        add_row_products(sum[0], b, A, lda, rows, k);
    }
    for (; k < k_end; ++k) {
        ROW b[RV];
        #pragma unroll
        for (int v = 0; v < RV; ++v) {
#define B_LANE(x) (v * VN + (x) < TN ? B_AT(k, cols[min(v * VN + (x), TN - 1)]) : (REAL)0)
            b[v] = BUILD_ROW(B_LANE);
#undef B_LANE
        }
        add_row_products(sum[0], b, A, lda, rows, k);
    }
}

#if !A_COLMAJOR
/* A block of the tile where B's columns lie along K: KRUN_SUMS vectors of sums, at least 4
 * columns (a square block loads the fewest vectors a product), all of them for narrow C */
#define XB_WANT (KRUN_SUMS / TM > 4 ? KRUN_SUMS / TM : 4)
#define XB (XB_WANT < TN ? XB_WANT : TN)
#define YB_WANT (KRUN_SUMS / XB)
#define YB (YB_WANT < TM ? YB_WANT : TM)

/* acc += A(y, k) B(k, x) over k_begin <= k < k_end where B's columns lie along K as A's
 * rows do (a column-major B, or a row-major B of one column): a block of YB x XB of the
 * tile at a time, each sum a vector of KRUN steps along K (YB + XB streams; A's rows and
 * B's columns are read again for each block, from the cache), in chunks of ROW_CHUNK
 * steps whose lanes are added in a fixed order, the steps past the chunk's last whole
 * vector value by value. Rows and columns past the tile read its last one and are not
 * stored. */
inline void accumulate_along_k(REAL *acc, const int k_begin, const int k_end,
                               __global const REAL *restrict A, const int lda,
                               const int *rows,
                               __global const REAL *restrict B, const int ldb,
                               const int *cols)
{
    for (int y0 = 0; y0 < TM; y0 += YB)
    for (int x0 = 0; x0 < TN; x0 += XB) {
        __global const REAL *row[YB], *column[XB];
        #pragma unroll
        for (int y = 0; y < YB; ++y)
            row[y] = A + rows[min(y0 + y, TM - 1)] * lda;
        #pragma unroll
        for (int x = 0; x < XB; ++x) {
            const int j = cols[min(x0 + x, TN - 1)];
            column[x] = B + (B_COLMAJOR ? j * ldb : j);
        }
        for (int k = k_begin; k < k_end; k += ROW_CHUNK) {
            const int end = min(k_end, k + ROW_CHUNK);
            RUN runs[YB][XB];
            #pragma unroll
            for (int y = 0; y < YB; ++y)
                #pragma unroll
                for (int x = 0; x < XB; ++x)
                    runs[y][x] = 0;
            int s = k;
            for (; s + KRUN <= end; s += KRUN) {
                RUN a[YB];
                #pragma unroll
                for (int y = 0; y < YB; ++y)
                    a[y] = PG_CAT(vload, KRUN)(0, row[y] + s);
                #pragma unroll
                for (int x = 0; x < XB; ++x) {
                    const RUN b = PG_CAT(vload, KRUN)(0, column[x] + s);
                    #pragma unroll
                    for (int y = 0; y < YB; ++y)
                        runs[y][x] = MAD(a[y], b, runs[y][x]);
                }
            }
            REAL part[YB][XB];
            #pragma unroll
            for (int y = 0; y < YB; ++y)
                #pragma unroll
                for (int x = 0; x < XB; ++x)
                    part[y][x] = lanes_sum(runs[y][x]);
            for (; s < end; ++s)
                #pragma unroll
                for (int y = 0; y < YB; ++y)
                    #pragma unroll
                    for (int x = 0; x < XB; ++x)
                        part[y][x] = MAD(row[y][s], column[x][s], part[y][x]);
            #pragma unroll
            for (int y = 0; y < YB; ++y)
                #pragma unroll
                for (int x = 0; x < XB; ++x)
                    if (y0 + y < TM && x0 + x < TN)
                        acc[(y0 + y) * TN + x0 + x] += part[y][x];
        }
    }
}
#endif

/* acc = A(y, k) B(k, x) summed over k_begin <= k < k_end: chunks of ROW_CHUNK steps, each
 * summed on its own (add_chunk_rows, its KU sums then added in order) and then added to
 * the run's total, so no sum in sequence is longer than ROW_CHUNK or the run's count of
 * chunks, however few groups share K (one group over 8 x 8 x 2^22: 1.3e-6 of relative
 * error, 3.5e-5 in one sequence). */
inline void accumulate_rows(REAL *acc, const int k_begin, const int vector_end,
                            const int k_end,
                            __global const REAL *restrict A, const int lda, const int *rows,
                            __global const REAL *restrict B, const int ldb, const int n0,
                            const int *cols)
{
#if !A_COLMAJOR
    if (B_COLMAJOR || (TN == 1 && ldb == 1)) {
        accumulate_along_k(acc, k_begin, k_end, A, lda, rows, B, ldb, cols);
        return;
    }
#endif
    ROW total[TM][RV];
    #pragma unroll
    for (int y = 0; y < TM; ++y)
        #pragma unroll
        for (int v = 0; v < RV; ++v)
            total[y][v] = 0;
    for (int k = k_begin; k < k_end; k += ROW_CHUNK) {
        const int end = min(k_end, k + ROW_CHUNK);
        ROW sum[KU][TM][RV];
        CLEAR_SUMS(sum, RV);
        add_chunk_rows(sum, k, min(vector_end, end), end, A, lda, rows, B, ldb, n0, cols);
        FOLD_SUMS(sum, total, RV);
    }
    #pragma unroll
    for (int y = 0; y < TM; ++y) {
        REAL values[RV * VN];
        #pragma unroll
        for (int v = 0; v < RV; ++v)
            STORE_ROW(total[y][v], values + v * VN);
        #pragma unroll
        for (int x = 0; x < TN; ++x)
            acc[y * TN + x] = values[x];
    }
}

#if FLAT
#define FLAT_ROW PG_CAT(REAL, 16)
#define FLAT_STEPS PG_CAT(REAL, FS)
#define FLAT_LANE(l) ((16 * v + (l)) / TN)  /* the step of lane l of block vector v */
#if USE_FP64
#define FLAT_MASK ulong16  /* shuffle's mask: unsigned, of REAL's size */
#else
#define FLAT_MASK uint16
#endif
#define FLAT_A_STEP(s) A_AT(rows[y], k + (s))
#if !A_COLMAJOR  /* the steps lie side by side in A's row */
#define FLAT_A_STEPS PG_CAT(vload, FS)(0, A + (long)rows[y] * lda + k)
#else
#define FLAT_A_STEPS ((FLAT_STEPS)(PG_CAT(LANES_, FS)(FLAT_A_STEP)))
#endif

/* sum[y] += the block of FS steps from k: B's rows k ... k + FS - 1 as FV vectors, times
 * A's values of each row y of the tile at those steps, each spread over its lanes */
inline void add_flat_block(FLAT_ROW sum[TM][FV], __global const REAL *restrict A,
                           const int lda, const int *rows,
                           __global const REAL *restrict B, const int k)
{
    FLAT_ROW b[FV];
    #pragma unroll
    for (int v = 0; v < FV; ++v)
        b[v] = vload16(0, B + (long)k * TN + 16 * v);
    #pragma unroll
    for (int y = 0; y < TM; ++y) {
        const FLAT_STEPS a = FLAT_A_STEPS;
        #pragma unroll
        for (int v = 0; v < FV; ++v) {
            const FLAT_MASK lanes = (FLAT_MASK)(
                FLAT_LANE(0), FLAT_LANE(1), FLAT_LANE(2), FLAT_LANE(3), FLAT_LANE(4),
                FLAT_LANE(5), FLAT_LANE(6), FLAT_LANE(7), FLAT_LANE(8), FLAT_LANE(9),
                FLAT_LANE(10), FLAT_LANE(11), FLAT_LANE(12), FLAT_LANE(13), FLAT_LANE(14),
                FLAT_LANE(15));
            sum[y][v] = MAD(shuffle(a, lanes), b[v], sum[y][v]);
        }
    }
}

/* acc = A(y, k) B(k, x) summed over k_begin <= k < k_end for a row-major B of TN columns
 * (ldb = TN = N): chunks of ROW_CHUNK steps (a multiple of FS) each summed on its own in
 * KU sums of blocks of FS steps and added to the run's total, as accumulate_rows does;
 * the steps past the run's last whole block value by value. */
inline void accumulate_flat(REAL *acc, const int k_begin, const int k_end,
                            __global const REAL *restrict A, const int lda, const int *rows,
                            __global const REAL *restrict B)
{
    FLAT_ROW total[TM][FV];
    #pragma unroll
    for (int y = 0; y < TM; ++y)
        #pragma unroll
        for (int v = 0; v < FV; ++v)
            total[y][v] = 0;
    const int blocks_end = k_begin + (k_end - k_begin) / FS * FS;
    for (int k = k_begin; k < blocks_end; k += ROW_CHUNK) {
        const int end = min(blocks_end, k + ROW_CHUNK);
        FLAT_ROW sum[KU][TM][FV];
        CLEAR_SUMS(sum, FV);
        int step = k;
        for (; step + KU * FS <= end; step += KU * FS)
            #pragma unroll
            for (int u = 0; u < KU; ++u)
                add_flat_block(sum[u], A, lda, rows, B, step + u * FS);
        for (; step < end; step += FS)
            add_flat_block(sum[0], A, lda, rows, B, step);
        FOLD_SUMS(sum, total, FV);
    }
    #pragma unroll
    for (int y = 0; y < TM; ++y) {
        #pragma unroll
        for (int x = 0; x < TN; ++x)
            acc[y * TN + x] = 0;
        REAL values[16 * FV];
        #pragma unroll
        for (int v = 0; v < FV; ++v)
            vstore16(total[y][v], v, values);
        #pragma unroll
        for (int l = 0; l < 16 * FV; ++l)
            acc[y * TN + l % TN] += values[l];
    }
    for (int k = blocks_end; k < k_end; ++k)
        #pragma unroll
        for (int y = 0; y < TM; ++y)
            #pragma unroll
            for (int x = 0; x < TN; ++x)
                acc[y * TN + x] = MAD(A_AT(rows[y], k), B[k * TN + x], acc[y * TN + x]);
}
#endif

/* Where the steps of a row-major B stop being read as RV vectors of VN values: at k_end
 * where the values lie in the row; at the last row of B where they run on into the next
 * row (the last has none after it); at once for a column-major B (no vectors). */
inline int vector_steps_end(const int n0, const int N, const int K, const int ldb,
                            const int k, const int k_end)
{
    if (B_COLMAJOR || n0 + RV * VN > ldb + N)
        return k;
    return n0 + RV * VN <= N ? k_end : min(k_end, K - 1);
}
#endif

/* Whether n values from p, a run starting at a multiple of n, lie as whole aligned
 * vectors in every row (lines ld apart) */
inline bool aligned_runs(__global const REAL *p, const int n, const int ld)
{
    return n % WIDTH == 0 && ld % WIDTH == 0 && (size_t)p % sizeof(WIDE) == 0;
}

__kernel __attribute__((reqd_work_group_size(BS * TG, 1, 1)))
void partial_tiles(STACK_ARGS const int M, const int N, const int K,
                   __global const REAL *restrict A, const int lda,
                   __global const REAL *restrict B, const int ldb,
                   __global REAL *restrict W
#if FUSE
                   , __global REAL *restrict C, const int ldc, __global int *Z
#endif
                   )
{
    const int lid = get_local_id(0);
    const int sid = lid % BS;  /* the work-item's place in its tile's block */
    const int block = lid / BS;
    const int tiles_n = (N + TN - 1) / TN;
    const int tiles = ((M + TM - 1) / TM) * tiles_n;
    const int tile_groups = tiles / TG;
    const int tile = (get_group_id(0) % tile_groups) * TG + block;
    const int g = get_group_id(0) / tile_groups;
    const int groups = get_num_groups(0) / tile_groups;
    /* A stack's product (portgemm/families/tallskinny.py: the plans that stack): with one
     * group along K, W is C itself; with the last group's sum, the product has its own
     * slices of W and its own tickets. */
#if FUSE
    ENTER_STACK_OF(C);
#if STACKED
    W += get_group_id(2) * (long)groups * M * N;
    Z += get_group_id(2) * tile_groups;
#endif
#else
    ENTER_STACK_OF(W);
#endif
    /* Group g's contiguous run of K, walked with a stride of BS: the g-th of GS shares of
     * the steps of BS, within one step of each other (GS need not divide them). */
    const int steps = (K + BS - 1) / BS;
    const int k_begin = (int)((long)g * steps / groups) * BS;
    const int k_end = min(K, (int)((long)(g + 1) * steps / groups) * BS);
    const int m0 = (tile / tiles_n) * TM;
    const int n0 = (tile % tiles_n) * TN;

    /* Rows and columns past the edge read the last one (in bounds; never stored). */
    int rows[TM], cols[TN];
    #pragma unroll
    for (int y = 0; y < TM; ++y)
        rows[y] = min(m0 + y, M - 1);
    #pragma unroll
    for (int x = 0; x < TN; ++x)
        cols[x] = min(n0 + x, N - 1);

    REAL acc[QN];
    #pragma unroll
    for (int q = 0; q < QN; ++q)
        acc[q] = 0;

    const int k = k_begin + sid;
#if ROWVEC
#if FLAT
    if (!B_COLMAJOR && N == TN && ldb == TN)
        accumulate_flat(acc, k, k_end, A, lda, rows, B);
    else
#endif
    accumulate_rows(acc, k, vector_steps_end(n0, N, K, ldb, k, k_end), k_end, A, lda, rows,
                    B, ldb, n0, cols);
#else
    const bool wide_a = A_COLMAJOR && m0 + TM <= M && aligned_runs(A, TM, lda);
    const bool wide_b = !B_COLMAJOR && n0 + TN <= N && aligned_runs(B, TN, ldb);
    if (wide_a && wide_b)
        accumulate(acc, k, k_end, A, lda, rows, true, B, ldb, cols, true);
    else if (wide_a)
        accumulate(acc, k, k_end, A, lda, rows, true, B, ldb, cols, false);
    else if (wide_b)
        accumulate(acc, k, k_end, A, lda, rows, false, B, ldb, cols, true);
    else
        accumulate(acc, k, k_end, A, lda, rows, false, B, ldb, cols, false);
#endif

    __local REAL tile_sums[TG * QN];
    __local REAL *tile_sum = tile_sums + block * QN;
#if REDUCE
    __local REAL runs[TG * BS / LANES * QN];
#if PORTGEMM_PTX
    __local REAL *swap = 0;
#else
    __local REAL swap[TG * BS];
#endif
    group_sum(acc, tile_sum, runs + block * (BS / LANES) * QN, swap, lid, sid);
#else
    __local REAL sums[TG * RCH * BS];
    group_sum(acc, tile_sum, sums + block * RCH * BS, sid);
#endif
    __global REAL *w = W + (long)g * M * N;
    for (int q = sid; q < QN; q += BS) {
        const int i = m0 + q / TN;
        const int j = n0 + q % TN;
        if (i < M && j < N)
            w[i * N + j] = tile_sum[q];
    }

#if FUSE
    __local int last;
    __local REAL parts[TG * PARTS * QN];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    __global int *ticket = Z + get_group_id(0) % tile_groups;
    if (lid == 0)
        last = take_ticket(ticket) == groups - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    sum_tile_slices(last, M, N, m0, n0, groups, W, C, ldc, parts + block * PARTS * QN, sid);
    if (last && lid == 0)
        *ticket = 0;  /* ready for the next launch */
#endif
}
