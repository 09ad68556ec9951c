#include <hipblas/hipblas.h>
#include <hip/hip_runtime.h>
#include <cstdio>

#define CUBLAS_CHECK(x) if ((x) != HIPBLAS_STATUS_SUCCESS) { printf("cublas error\n"); }

void gemm(const float *dA, const float *dB, float *dC, int m, int n, int k, hipStream_t s) {
  hipblasHandle_t handle;
  CUBLAS_CHECK(hipblasCreate(&handle));
  hipblasSetStream(handle, s);
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_T, m, n, k, &alpha, dA, m, dB, n, &beta, dC, m));
  cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
  float result = 0.f;
  hipblasSdot(handle, m, dA, 1, dB, 1, &result);
  hipblasDestroy(handle);
}
