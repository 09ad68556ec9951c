#include <cublas_v2.h>
#include <cuComplex.h>
#include <library_types.h>

// One cuBLAS program across three ROCm releases: hipBLAS 5.x (hipblasComplex and hipblasDatatype_t
// API), 6.x (the `_v2` names with hipComplex and hipDataType) and 7.0 (the `_v2` suffix dropped).
cublasStatus_t caxpy(cublasHandle_t h, int n, const cuComplex *alpha, const cuComplex *x, cuComplex *y) {
  return cublasCaxpy(h, n, alpha, x, 1, y, 1);
}

cublasStatus_t zdotc(cublasHandle_t h, int n, const cuDoubleComplex *x, const cuDoubleComplex *y,
                     cuDoubleComplex *result) {
  return cublasZdotc(h, n, x, 1, y, 1, result);
}

cublasStatus_t gemm_ex(cublasHandle_t h, const void *A, const void *B, void *C, int m, int n, int k) {
  const float alpha = 1.0f, beta = 0.0f;
  cudaDataType_t ab = CUDA_R_16F;
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, ab, m, B, ab, k, &beta, C,
                      CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t dot_ex(cublasHandle_t h, int n, const void *x, const void *y, void *result) {
  return cublasDotEx(h, n, x, CUDA_R_32F, 1, y, CUDA_R_32F, 1, result, CUDA_R_32F, CUDA_R_32F);
}
