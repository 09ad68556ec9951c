#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>

// The compute type given as a cudaDataType (cuBLAS's backward-compatible form): from ROCm 6.0
// hipBLAS takes hipblasComputeType_t there.
hipblasStatus_t gemm(hipblasHandle_t h, int m, int n, int k, const float *A, const float *B, float *C) {
  float alpha = 1.f, beta = 0.f;
  return hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, HIP_R_32F, m, B, HIP_R_32F, k,
                      &beta, C, HIP_R_32F, m, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);
}

hipblasStatus_t gemm_strided(hipblasHandle_t h, int m, int n, int k, const double *A, const double *B,
                            double *C, int batch) {
  double alpha = 1., beta = 0.;
  return hipblasGemmStridedBatchedEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, HIP_R_64F, m,
                                    (long long)m * k, B, HIP_R_64F, k, (long long)k * n, &beta, C,
                                    HIP_R_64F, m, (long long)m * n, batch, HIPBLAS_COMPUTE_64F,
                                    HIPBLAS_GEMM_DEFAULT);
}
