/* portgemm: the prelude every kernel family in this folder includes.
 *
 * Every kernel computes C = A * B with C row-major (ldc = N) and the signature
 *   gemm(int M, int N, int K, const REAL *A, int lda, const REAL *B, int ldb,
 *        REAL *C, int ldc)
 * (after three strides where STACKED = 1: a stack of products in one launch).
 * Indices are int: the host refuses matrices of 2^31 elements or more.
 * Every -D parameter below and in each family has a default, so any file of this folder
 * compiles alone (`-I kernels_cl`, no options) with float32, row-major operands.
 */
#ifndef PORTGEMM_COMMON_H
#define PORTGEMM_COMMON_H

#ifndef REAL
#define REAL float      // element type: float, or double (with USE_FP64 = 1)
#endif
#ifndef USE_FP64
#define USE_FP64 0      // 1 enables cl_khr_fp64 for REAL = double
#endif
#ifndef A_COLMAJOR
#define A_COLMAJOR 0    // 1: A is stored column-major (an F-order array or a transposed view)
#endif
#ifndef B_COLMAJOR
#define B_COLMAJOR 0    // 1: B is stored column-major
#endif

#ifndef PORTGEMM_PTX
#define PORTGEMM_PTX 0  // 1 (portgemm sets it on NVIDIA devices): the compiler takes inline PTX
#endif
#ifndef PORTGEMM_SM
#define PORTGEMM_SM 0   // NVIDIA's compute capability, 10 major + minor (portgemm sets it)
#endif

#if USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* a * b + c: contracted into one fused multiply-add under -cl-mad-enable (which portgemm
 * always passes). Written out rather than as mad(): PoCL implements mad() on vectors as a
 * library call per element, several times slower than the contracted expression. */
#define MAD(a, b, c) ((a) * (b) + (c))

/* a ## b after both are expanded: REAL and a width into a vector type, vload and a width */
#define PG_CAT_(a, b) a##b
#define PG_CAT(a, b) PG_CAT_(a, b)
#define REAL2 PG_CAT(REAL, 2)  /* two REALs: a lane's pair of neighbouring values */
/* a macro's expansion as a string literal (for inline assembly) */
#define PG_STR_(x) #x
#define PG_STR(x) PG_STR_(x)

#define A_AT(i, k) A[A_COLMAJOR ? (k) * lda + (i) : (i) * lda + (k)]
#define B_AT(k, j) B[B_COLMAJOR ? (j) * ldb + (k) : (k) * ldb + (j)]

#ifndef STACKED
#define STACKED 0       // 1: one launch over a stack of products (STACK_ARGS, ENTER_STACK)
#endif

/* A stack of products in one launch: the NDRange gains a third dimension of one
 * work-group layer a product, and layer z moves A, B and C to the z-th matrix of each,
 * which lie stride_a, stride_b and stride_c values apart (a stride of 0: one matrix
 * serves every product). Every kernel that takes GEMM_ARGS (or SPLIT_GEMM_ARGS) starts
 * with ENTER_STACK (splitk.h's SPLIT_K holds it), a kernel whose C has another name with
 * ENTER_STACK_OF(that name); the host stacks only plans of one launch, with no workspace
 * or ticket counters unless the kernel moves them to its product's own (portgemm/
 * families/base.py: over_stack, Variant.stacks_scratch). */
#if STACKED
#define STACK_ARGS const long stride_a, const long stride_b, const long stride_c,
#define ENTER_STACK_OF(out)                                                               \
    A += get_group_id(2) * stride_a;                                                      \
    B += get_group_id(2) * stride_b;                                                      \
    out += get_group_id(2) * stride_c
#else
#define STACK_ARGS
#define ENTER_STACK_OF(out) (void)0
#endif
#define ENTER_STACK ENTER_STACK_OF(C)

#define GEMM_ARGS STACK_ARGS const int M, const int N, const int K,       \
                  __global const REAL *restrict A, const int lda,          \
                  __global const REAL *restrict B, const int ldb,          \
                  __global REAL *restrict C, const int ldc

#endif
