/* wgmma: float32 GEMM on Hopper's warpgroup tensor-core instruction, PTX's
 * wgmma.mma_async.m64nNk8.f32.tf32.tf32, as "3xTF32" (a float32 GEMM's error in norm,
 * not exact to the last bit: see mma.cl).
 *
 * NVIDIA's OpenCL compiler targets sm_90, and wgmma needs sm_90a: the instructions are
 * written as PTX comments marked SM90A, and portgemm rebuilds the program from its PTX with
 * the marks removed and the target sm_90a (portgemm/runtime/ptx.py). Everywhere else --
 * CPUs, other GPUs -- the same tiles, staging and layouts are multiplied with plain
 * multiply-adds, so the CPU tests check all of it but the instruction.
 *
 * A work-group of WGM x WGN warpgroups (128 work-items each) computes a BM x BN tile of C,
 * BM = 64 WGM, BN = WN WGN: each warpgroup a 64 x WN block, one wgmma of 64 x WN x 8 per
 * step of 8 of K and TF32 part. K goes in slabs of BK = 8 KS, staged in local memory and
 * double-buffered (the next slab is read into registers, and stored into the other
 * buffer while the tensor cores multiply this one):
 *   A m-major, As[m][k] (x itself; each warp takes its 16 rows as the m16n8k8 fragment
 *     of mma.cl and splits it into TF32 parts in registers: wgmma's A from registers;
 *     rows PAD = 4 values longer than the slab, a row stride of 4 mod 8 values, so that
 *     a warp's fragment reads are free of bank conflicts);
 *   B in wgmma's K-major layout without swizzle, as both TF32 parts, Bs[p]: 8 x 4 "core
 *     matrices" (8 columns n, 4 steps k, 128 contiguous bytes, column by column), those of
 *     one column block adjacent along K (LBO 128 bytes), the blocks BK / 4 cores apart
 *     (SBO 32 BK bytes): value (k, n) at ((n / 8) (BK / 4) + k / 4) 32 + (n % 8) 4 + k % 4.
 * The high parts are rounded to TF32 (tf32_hi); the low parts x - x_hi go to the tensor
 * cores as they are, which read them without their low 13 bits: rounding them first
 * changed the error at 4096 by 1% and cost a tenth of the kernel's time in instructions
 * (bench/results/2026-11-26-h100-wgmma-issue).
 * A slab's 3 KS products (per step a_lo b_hi, a_hi b_lo, a_hi b_hi) are summed by the
 * tensor cores from zero, then added to float32 accumulators: the tensor cores truncate
 * what they add, and over all of K that bias is 26 times a float32 GEMM's error at 4096.
 * Work-item (warpgroup, warp w, lane 4 g + t) holds value i of its warpgroup's block at
 * row 16 w + g + 8 ((i % 4) / 2), column 8 (i / 4) + 2 t + i % 2 (checked on an H200 by
 * bench/gpu/wgmma_probe.py).
 *
 * -D WN       columns of a warpgroup's block: 32, 48, 64, 80, 96 or 128 (wgmma's N)
 * -D WGM, WGN warpgroups of a work-group along M and N
 * -D KS       steps of 8 of K in one slab
 * -D PAD      extra values at the end of each row of As (bank spread): a multiple of 4
 * -D LEAD     slabs of K read ahead of the one multiplied: 1 (the next slab is read and
 *             stored while the tensor cores multiply, so its store waits for the read) or 2
 *             (the slab after next is read once the next one is stored, and has a whole
 *             slab's products to arrive in the same registers)
 * -D KSPLIT   split-K: kernels_cl/splitk.h, in runs of whole BK slabs
 * Edges (any M, N, K >= 1): rows and columns past M or N read the last one (in bounds;
 * never stored), steps past K read zeros; stores of C are guarded, a lane's two
 * neighbouring values of a row one store where C allows (store_pairs.h).
 * NDRange (SYCL order): (ceil(M / BM), ceil(N / BN) * WG) in work-groups of (1, WG),
 * WG = 128 WGM WGN; with KSPLIT > 1, (KSPLIT, ...) in groups of (1, 1, WG).
 */

#ifndef WN
#define WN 64       // columns of a warpgroup's block: 32, 48, 64, 80, 96 or 128
#endif
#ifndef WGM
#define WGM 1       // warpgroups along M (64 rows each)
#endif
#ifndef WGN
#define WGN 1       // warpgroups along N (WN columns each)
#endif
#ifndef KS
#define KS 2        // steps of 8 of K in one slab
#endif
#ifndef PAD
#define PAD 4       // values past each row of As (bank spread)
#endif
#ifndef LEAD
#define LEAD 2      // slabs read ahead: 1 or 2
#endif
#if LEAD != 1 && LEAD != 2
#error "LEAD must be 1 or 2"
#endif
#ifndef KSPLIT
#define KSPLIT 1    // split-K: K cut into KSPLIT runs, one per work-group layer
#endif
#include "splitk.h"
#include "store_pairs.h"

#define WG (128 * WGM * WGN)
#define BM (64 * WGM)
#define BN (WN * WGN)
#define BK (8 * KS)
#define LA (BM * BK / WG)   /* values of A a work-item stages per slab */
#define LB (BK * BN / WG)   /* values of B */
/* tf32, tf32_truncated (after the tile they read) */
#include "slab.h"

/* Both operands are staged in runs of RUN values: 4 where a work-item's values of each
 * (LA = 4 KS / WGN, LB = KS WN / (16 WGM), 2 at least) divide into them, else 2. */
#if LA % 4 == 0 && LB % 4 == 0
#define RUN 4
#else
#define RUN 2
#endif
#define RUNVEC PG_CAT(float, RUN)
#define AV RUN
#define BV RUN

/* A's runs lie along its contiguous dimension (k in a row-major A, m in a column-major
 * one): run r of a work-item is element tid + r WG of the slab's BM BK / AV runs. A run
 * wholly inside A and aligned is read as one vector, and in a row-major A stored as one;
 * the others value by value, as load_a of slab.h, which mma.cl keeps: its k-major tiles
 * ran 9% slower in float64 staged in runs (bench/results/2026-11-26-h100-wgmma-issue).
 * a_run: where run r of work-item tid starts in the slab, (row mm, step kk). */
inline int2 a_run(const int r, const int tid)
{
    const int idx = tid + r * WG;
#if A_COLMAJOR
    return (int2)(AV * (idx % (BM / AV)), idx / (BM / AV));
#else
    return (int2)(idx / (BK / AV), AV * (idx % (BK / AV)));
#endif
}

/* the slab of K from k0: this work-item's runs of A, zeros past K, rows past M reading
 * the last one; vectors where A's runs are aligned (aligned: lda and A's address allow
 * them) */
inline void load_a_runs(float ra[LA], const int k0, const int tid, const int m0,
                        const int M, const int K, __global const float *restrict A,
                        const int lda, const int aligned)
{
    for (int r = 0; r < LA / AV; ++r) {
        const int2 at = a_run(r, tid);
        const int mm = m0 + at.x, k = k0 + at.y;
#if A_COLMAJOR
        if (aligned && mm + AV <= M && k < K) {
            *(RUNVEC *)(ra + AV * r) = *(__global const RUNVEC *)(A + (long)k * lda + mm);
            continue;
        }
#else
        if (aligned && k + AV <= K) {
            *(RUNVEC *)(ra + AV * r) = *(__global const RUNVEC *)(A + (long)min(mm, M - 1) * lda + k);
            continue;
        }
#endif
        for (int j = 0; j < AV; ++j) {
            const int row = min(mm + (A_COLMAJOR ? j : 0), M - 1), kj = k + (A_COLMAJOR ? 0 : j);
            ra[AV * r + j] = kj < K ? A_AT(row, kj) : 0.0f;
        }
    }
}
/* x's high TF32 part, to nearest (ties away from zero) by two integer operations where
 * cvt.rna.tf32 takes four: 2-3% of the kernel's time on an H100
 * (bench/results/2026-11-26-h100-wgmma-issue). Unlike cvt, it may turn a NaN into
 * another value; the low part x - hi is then NaN all the same, and this kernel does not
 * round it again, so a NaN still makes its products NaN. */
inline float tf32_hi(const float x)
{
    return as_float((as_uint(x) + 0x1000u) & 0xffffe000u);
}

#define ND (WN / 2)         /* accumulators of a work-item: 64 WN / 128 */
#define WGMMA_PTX (PORTGEMM_PTX && PORTGEMM_SM == 90 && !USE_FP64)  /* sm_90a only */
#define SM90A "//sm_90a:"   /* see portgemm/runtime/ptx.py */

/* where value (k, n) of a slab of B sits in its part of Bs */
inline int b_index(const int k, const int n)
{
    return ((n / 8) * (BK / 4) + k / 4) * 32 + (n % 8) * 4 + k % 4;
}

#if WGMMA_PTX
/* The instruction spelled out for each WN: WG_SHAPE, its ND accumulators' operands
 * (WG_D, numbered from 0; WG_OUT, bound to d[]) and where a's 4 registers, b and the
 * accumulate flag follow them (WG_REST, WG_FLAG). */
#define F8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
              "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define D16 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define D24 D16 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define D32 D24 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define D40 D32 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define D48 D40 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define D64 D48 ", %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, " \
            "%62, %63"
#if WN == 32
#define WG_SHAPE "m64n32k8"
#define WG_D D16
#define WG_OUT F8(0), F8(8)
#define WG_REST "{%16, %17, %18, %19}, %20"
#define WG_FLAG "%21"
#elif WN == 48
#define WG_SHAPE "m64n48k8"
#define WG_D D24
#define WG_OUT F8(0), F8(8), F8(16)
#define WG_REST "{%24, %25, %26, %27}, %28"
#define WG_FLAG "%29"
#elif WN == 64
#define WG_SHAPE "m64n64k8"
#define WG_D D32
#define WG_OUT F8(0), F8(8), F8(16), F8(24)
#define WG_REST "{%32, %33, %34, %35}, %36"
#define WG_FLAG "%37"
#elif WN == 80
#define WG_SHAPE "m64n80k8"
#define WG_D D40
#define WG_OUT F8(0), F8(8), F8(16), F8(24), F8(32)
#define WG_REST "{%40, %41, %42, %43}, %44"
#define WG_FLAG "%45"
#elif WN == 96
#define WG_SHAPE "m64n96k8"
#define WG_D D48
#define WG_OUT F8(0), F8(8), F8(16), F8(24), F8(32), F8(40)
#define WG_REST "{%48, %49, %50, %51}, %52"
#define WG_FLAG "%53"
#elif WN == 128
#define WG_SHAPE "m64n128k8"
#define WG_D D64
#define WG_OUT F8(0), F8(8), F8(16), F8(24), F8(32), F8(40), F8(48), F8(56)
#define WG_REST "{%64, %65, %66, %67}, %68"
#define WG_FLAG "%69"
#else
#error "WN must be 32, 48, 64, 80, 96 or 128"
#endif

/* d = a b (+ d when accumulate) for the warpgroup's 64 x WN block and one step of 8:
 * a this work-item's fragment, b through the descriptor */
inline void wgmma(float d[ND], const uint a[4], const ulong b, const int accumulate)
{
    asm volatile(SM90A "{ .reg .pred p; setp.ne.b32 p, " WG_FLAG ", 0; "
                 "wgmma.mma_async.sync.aligned." WG_SHAPE ".f32.tf32.tf32 {" WG_D "}, "
                 WG_REST ", p, 1, 1; }"
                 : WG_OUT
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}

/* the matrix descriptor of B's cores from base: no swizzle, LBO 128 bytes, SBO 32 BK */
inline ulong descriptor(__local const float *base)
{
    const uint address = (uint)(size_t)base;
    return (ulong)((address & 0x3FFFF) >> 4) | ((ulong)(128 >> 4) << 16)
           | ((ulong)((32 * BK) >> 4) << 32);
}
#endif

/* Start part = this slab's products for the work-item's values of C (3 KS of them,
 * summed from zero): on the tensor cores, asynchronously (products_wait says when part is
 * there), or at once with multiply-adds */
inline void products_start(float part[ND], __local const float As[BM][BK + PAD],
                           __local const float Bs[2][BK * BN], const int row0,
                           const int col0, const int g, const int t)
{
#if WGMMA_PTX
    uint a_hi[KS][4], a_lo[KS][4];
    for (int ks = 0; ks < KS; ++ks)
        for (int i = 0; i < 4; ++i) {
            const float x = As[row0 + g + 8 * (i % 2)][ks * 8 + t + 4 * (i / 2)];
            const float hi = tf32_hi(x);
            a_hi[ks][i] = as_uint(hi);
            a_lo[ks][i] = as_uint(x - hi);  /* the tensor cores drop its low bits */
        }
    asm volatile(SM90A "wgmma.fence.sync.aligned;" ::: "memory");
    for (int ks = 0; ks < KS; ++ks) {
        /* this step's cores: column block col0 / 8, k from 8 ks */
        const int core = b_index(8 * ks, col0);
        wgmma(part, a_lo[ks], descriptor(Bs[0] + core), ks > 0);
        wgmma(part, a_hi[ks], descriptor(Bs[1] + core), 1);
        wgmma(part, a_hi[ks], descriptor(Bs[0] + core), 1);
    }
    asm volatile(SM90A "wgmma.commit_group.sync.aligned;" ::: "memory");
#else
    for (int i = 0; i < ND; ++i) {
        const int row = row0 + g + 8 * ((i % 4) / 2), col = col0 + 8 * (i / 4) + 2 * t + i % 2;
        float s = 0.0f;
        for (int k = 0; k < BK; ++k) {
            const float x = As[row][k], a_hi = tf32_hi(x), a_lo = tf32_truncated(x - a_hi);
            const float b_hi = Bs[0][b_index(k, col)];
            const float b_lo = tf32_truncated(Bs[1][b_index(k, col)]);
            s = fma(a_lo, b_hi, s);
            s = fma(a_hi, b_lo, s);
            s = fma(a_hi, b_hi, s);
        }
        part[i] = s;
    }
#endif
}

/* Wait for products_start's part. The wait names part's registers, so that the compiler
 * reads them only after it (the instruction writes them behind its back). */
inline void products_wait(float d[ND])
{
#if WGMMA_PTX
    asm volatile(SM90A "wgmma.wait_group.sync.aligned 0;" : WG_OUT :: "memory");
#endif
}

/* B's runs are BV consecutive steps of k at one column n, consecutive
 * work-items along n: a warp reads whole rows of a row-major B, and each run is BV
 * adjacent values of a core matrix (k % 4 is fastest), stored as one vector: 6-8% faster
 * on an H100 than value by value in the cores' order (bench/results/
 * 2026-11-26-h100-wgmma-issue). Run r of work-item tid: k = BV ((tid + r WG) / BN),
 * n = (tid + r WG) % BN. */
inline int2 b_run(const int r, const int tid)
{
    const int idx = tid + r * WG;
    return (int2)(BV * (idx / BN), idx % BN);
}

/* the slab of K from k0: this work-item's runs of B, zeros past K, columns past N
 * reading the last one; a column-major B's runs read as vectors where aligned */
inline void load_b_cores(float rb[LB], const int k0, const int tid, const int n0,
                         const int N, const int K, __global const float *restrict B,
                         const int ldb, const int aligned)
{
    for (int r = 0; r < LB / BV; ++r) {
        const int2 at = b_run(r, tid);
        const int k = k0 + at.x, col = min(n0 + at.y, N - 1);
#if B_COLMAJOR
        if (aligned && k + BV <= K) {
            *(RUNVEC *)(rb + BV * r) = *(__global const RUNVEC *)(B + (long)col * ldb + k);
            continue;
        }
#endif
        for (int j = 0; j < BV; ++j)
            rb[BV * r + j] = k + j < K ? B_AT(k + j, col) : 0.0f;
    }
}

inline void store_slab(const float ra[LA], const float rb[LB], const int tid,
                       __local float As[BM][BK + PAD], __local float Bs[2][BK * BN])
{
    for (int r = 0; r < LA / AV; ++r) {
        const int2 at = a_run(r, tid);
#if A_COLMAJOR
        for (int j = 0; j < AV; ++j)
            As[at.x + j][at.y] = ra[AV * r + j];
#else  /* a run is AV values of a row: rows of BK + PAD, PAD a multiple of 4 */
        *(__local RUNVEC *)&As[at.x][at.y] = *(const RUNVEC *)(ra + AV * r);
#endif
    }
    for (int r = 0; r < LB / BV; ++r) {
        const int2 at = b_run(r, tid);
        const int core = b_index(at.x, at.y);  /* BV adjacent values, 4 BV bytes aligned */
        RUNVEC hi, lo;
        for (int j = 0; j < BV; ++j) {
            const float x = rb[BV * r + j], h = tf32_hi(x);
            ((float *)&hi)[j] = h;
            ((float *)&lo)[j] = x - h;  /* read as TF32, its low bits dropped */
        }
        *(__local RUNVEC *)&Bs[0][core] = hi;
        *(__local RUNVEC *)&Bs[1][core] = lo;
    }
#if WGMMA_PTX  /* these writes, by the generic proxy, visible to wgmma's (async) reads */
    asm volatile(SM90A "fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void gemm(SPLIT_GEMM_ARGS)
{
    SPLIT_K(BK);
    __local float As[2][BM][BK + PAD] __attribute__((aligned(128)));
    __local float Bs[2][2][BK * BN] __attribute__((aligned(128)));
    const int tid = get_local_id(0);
    const int group = tid / 128, warp = (tid / 32) % 4, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int row0 = (group / WGN) * 64 + 16 * warp, col0 = (group % WGN) * WN;
    const int m0 = get_group_id(1) * BM, n0 = get_group_id(0) * BN;

    float acc[ND], part[ND];
    for (int i = 0; i < ND; ++i)
        acc[i] = part[i] = 0.0f;

    float ra[LA] __attribute__((aligned(16))), rb[LB] __attribute__((aligned(16)));
    const int slabs = (K + BK - 1) / BK;
    const int aligned_a = lda % AV == 0 && (size_t)A % (4 * AV) == 0;
    const int aligned_b = ldb % BV == 0 && (size_t)B % (4 * BV) == 0;
    load_a_runs(ra, 0, tid, m0, M, K, A, lda, aligned_a);
    load_b_cores(rb, 0, tid, n0, N, K, B, ldb, aligned_b);
    store_slab(ra, rb, tid, As[0], Bs[0]);
#if LEAD == 2
    if (1 < slabs) {
        load_a_runs(ra, BK, tid, m0, M, K, A, lda, aligned_a);
        load_b_cores(rb, BK, tid, n0, N, K, B, ldb, aligned_b);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int slab = 0; slab < slabs; ++slab) {
        const int buf = slab & 1;
#if LEAD == 1
        if (slab + 1 < slabs) {
            load_a_runs(ra, (slab + 1) * BK, tid, m0, M, K, A, lda, aligned_a);
            load_b_cores(rb, (slab + 1) * BK, tid, n0, N, K, B, ldb, aligned_b);
        }
#endif
        products_start(part, As[buf], Bs[buf], row0, col0, g, t);
        if (slab + 1 < slabs)  /* while the tensor cores multiply this slab */
            store_slab(ra, rb, tid, As[buf ^ 1], Bs[buf ^ 1]);
#if LEAD == 2
        if (slab + 2 < slabs) {  /* arrives while the next slab is multiplied */
            load_a_runs(ra, (slab + 2) * BK, tid, m0, M, K, A, lda, aligned_a);
            load_b_cores(rb, (slab + 2) * BK, tid, n0, N, K, B, ldb, aligned_b);
        }
#endif
        products_wait(part);
        for (int i = 0; i < ND; ++i)
            acc[i] += part[i];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    const int fit = pairs_fit(C, ldc);
    for (int i = 0; i < ND; i += 2)  /* values i and i + 1: columns 2 t and 2 t + 1 */
        store_pair(C, ldc, M, N, m0 + row0 + g + 8 * ((i % 4) / 2),
                   n0 + col0 + 8 * (i / 4) + 2 * t, acc[i], acc[i + 1], fit);
}
