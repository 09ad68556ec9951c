#include <cuda_runtime.h>
#include <cusolverDn.h>

int lu(double *dA, int n, int *dIpiv, int *dInfo) {
  cusolverDnHandle_t handle;
  cusolverDnCreate(&handle);
  int lwork = 0;
  cusolverDnDgetrf_bufferSize(handle, n, n, dA, n, &lwork);
  double *work;
  cudaMalloc(&work, lwork * sizeof(double));
  cusolverDnDgetrf(handle, n, n, dA, n, work, dIpiv, dInfo);
  cusolverDnDgetrs(handle, CUBLAS_OP_N, n, 1, dA, n, dIpiv, dA, n, dInfo);
  cudaFree(work);
  cusolverDnDestroy(handle);
  return 0;
}
