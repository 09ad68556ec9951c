#include <cublas_v2.h>
#include <cuda_runtime.h>

void gemm(const float *dA, const float *dB, float *dC, int m, int n, int k) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m);
  cublasDestroy(handle);
}
