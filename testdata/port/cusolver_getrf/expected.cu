#include <hip/hip_runtime.h>
#include <hipsolver/hipsolver.h>

int lu(double *dA, int n, int *dIpiv, int *dInfo) {
  hipsolverHandle_t handle;
  hipsolverDnCreate(&handle);
  int lwork = 0;
  hipsolverDnDgetrf_bufferSize(handle, n, n, dA, n, &lwork);
  double *work;
  hipMalloc(&work, lwork * sizeof(double));
  hipsolverDnDgetrf(handle, n, n, dA, n, work, dIpiv, dInfo);
  hipsolverDnDgetrs(handle, HIPBLAS_OP_N, n, 1, dA, n, dIpiv, dA, n, dInfo);
  hipFree(work);
  hipsolverDnDestroy(handle);
  return 0;
}
