/* portgemm: prelude prepended to every kernel family in this folder.
 *
 * Every kernel computes C = A * B with C row-major (ldc = N) and the signature
 *   gemm(int M, int N, int K, const REAL *A, int lda, const REAL *B, int ldb,
 *        REAL *C, int ldc)
 * -D REAL=float|double   element type; double also needs -D USE_FP64=1
 * -D A_COLMAJOR=0|1      A is stored column-major (an F-order array or a transposed view)
 * -D B_COLMAJOR=0|1      same for B
 * Indices are int: the host refuses matrices of 2^31 elements or more.
 */
#if USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define A_AT(i, k) A[A_COLMAJOR ? (k) * lda + (i) : (i) * lda + (k)]
#define B_AT(k, j) B[B_COLMAJOR ? (j) * ldb + (k) : (k) * ldb + (j)]

#define GEMM_ARGS const int M, const int N, const int K,                  \
                  __global const REAL *restrict A, const int lda,          \
                  __global const REAL *restrict B, const int ldb,          \
                  __global REAL *restrict C, const int ldc
