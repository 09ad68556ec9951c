#include <rocblas/rocblas.h>
#include <hip/hip_runtime.h>

void gemm(const float *dA, const float *dB, float *dC, int m, int n, int k) {
  rocblas_handle handle;
  rocblas_create_handle(&handle);
  const float alpha = 1.0f, beta = 0.0f;
  rocblas_sgemm(handle, rocblas_operation_none, rocblas_operation_none, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m);
  rocblas_destroy_handle(handle);
}
