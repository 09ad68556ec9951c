#include <cublas_v2.h>

// The compute type given as a cudaDataType (cuBLAS's backward-compatible form): from ROCm 6.0
// hipBLAS takes hipblasComputeType_t there.
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const float *A, const float *B, float *C) {
  float alpha = 1.f, beta = 0.f;
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_32F, m, B, CUDA_R_32F, k,
                      &beta, C, CUDA_R_32F, m, CUDA_R_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t gemm_strided(cublasHandle_t h, int m, int n, int k, const double *A, const double *B,
                            double *C, int batch) {
  double alpha = 1., beta = 0.;
  return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_64F, m,
                                    (long long)m * k, B, CUDA_R_64F, k, (long long)k * n, &beta, C,
                                    CUDA_R_64F, m, (long long)m * n, batch, CUDA_R_64F,
                                    CUBLAS_GEMM_DEFAULT);
}
