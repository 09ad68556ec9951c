#include <hipblas/hipblas.h>
#include <hip/hip_runtime.h>
#include <hip/library_types.h>

hipblasStatus_t gemm_ex(hipblasHandle_t h, const void *A, const void *B, void *C, int m, int n, int k) {
  const float alpha = 1.0f, beta = 0.0f;
  return hipblasGemmEx_v2(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, HIP_R_16F, m, B, HIP_R_16F, k,
                      &beta, C, HIP_R_32F, m, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);
}
