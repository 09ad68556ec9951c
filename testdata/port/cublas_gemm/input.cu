#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CUBLAS_CHECK(x) if ((x) != CUBLAS_STATUS_SUCCESS) { printf("cublas error\n"); }

void gemm(const float *dA, const float *dB, float *dC, int m, int n, int k, cudaStream_t s) {
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  cublasSetStream(handle, s);
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, dA, m, dB, n, &beta, dC, m));
  cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
  float result = 0.f;
  cublasSdot(handle, m, dA, 1, dB, 1, &result);
  cublasDestroy(handle);
}
