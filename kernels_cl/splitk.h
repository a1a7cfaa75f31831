/* Split-K, for the families that declare KSPLIT (xgemm.cl, wgmma.cl, wide.cl, vec.cl):
 * shapes whose C has too few tiles to fill the device, and a deep K; a C of few rows
 * (wide); a deep K on a CPU, for accuracy (vec.cl).
 * The NDRange gains a third dimension of KSPLIT work-group layers. Layer z takes the
 * z-th of KSPLIT runs of whole slabs of K and writes its partial product into slice z
 * of the workspace passed as C (KSPLIT
 * slices of M x ldc, ldc = N); kernels_cl/reduce.cl adds the slices into C in order. A
 * layer whose run starts past K writes zeros. Runs of whole slabs keep every load of a
 * slab aligned as in the whole-K kernel.
 *
 * The kernel takes SPLIT_GEMM_ARGS (GEMM_ARGS with K named K_all) and starts with
 * SPLIT_K(slab): it declares this layer's K and moves A, B and C to its run and slice
 * (without a split, to its product of a stack: common.h's ENTER_STACK). */
#ifndef PORTGEMM_SPLITK_H
#define PORTGEMM_SPLITK_H

#include "common.h"

/* how B lies in the run SPLIT_K moves it to: a kernel that reads a packed copy of B
 * defines its own */
#ifndef SPLIT_B_COLMAJOR
#define SPLIT_B_COLMAJOR B_COLMAJOR
#endif

#define SPLIT_GEMM_ARGS STACK_ARGS const int M, const int N, const int K_all,              \
                        __global const REAL *restrict A, const int lda,                    \
                        __global const REAL *restrict B, const int ldb,                    \
                        __global REAL *restrict C, const int ldc

#if KSPLIT > 1 && STACKED
#error "a stack of products takes the third dimension split-K's layers would"
#elif KSPLIT > 1
#define SPLIT_K(slab)                                                                      \
    const int split_run_ = ((K_all + (slab) - 1) / (slab) + KSPLIT - 1) / KSPLIT * (slab); \
    const int split_begin_ = min(K_all, (int)get_group_id(2) * split_run_);                \
    const int K = min(K_all - split_begin_, split_run_);                                   \
    A += A_COLMAJOR ? (long)split_begin_ * lda : split_begin_;                             \
    B += SPLIT_B_COLMAJOR ? split_begin_ : (long)split_begin_ * ldb;                       \
    C += (long)get_group_id(2) * M * ldc
#else
#define SPLIT_K(slab) const int K = K_all; ENTER_STACK
#endif

#endif
