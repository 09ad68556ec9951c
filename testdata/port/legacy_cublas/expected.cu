// The legacy cuBLAS API (cublas.h): no handle, scalars by value, results returned. hipBLAS has
// only the handle-based API, so the port keeps HIPIFY's renames and one HP611 says why the
// calls must be rewritten.
#include <hip/hip_runtime.h>
#include <stdio.h>
// hipport HP611 [REMEDIATION/BUILD]: the legacy cuBLAS API (`cublas.h`), 7 functions called (`cublasInit`, `cublasAlloc`, `cublasSnrm2`, `cublasSscal`, `cublasGetError`, `cublasFree` and 1 more; lines 9, 10, 15, 16, 17, 21, 22): hipBLAS has only the handle-based API, so the renamed calls do not compile and the helpers have no HIP name
#include <hipblas/hipblas.h>

float norm_and_scale(float *h_x, int n) {
  float *d_x = 0;
  // hipport HP001 [PASS/BUILD]: `cublasInit` has no HIP equivalent (blas API) (part of the legacy cuBLAS API: one rewrite, carried by `input.cu:5`)
  cublasInit();
  // hipport HP001 [PASS/BUILD]: `cublasAlloc` has no HIP equivalent (blas API) (part of the legacy cuBLAS API: one rewrite, carried by `input.cu:5`)
  if (cublasAlloc(n, sizeof(float), (void **)&d_x) != HIPBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "device memory allocation failed\n");
    return -1.0f;
  }
  hipblasSetVector(n, sizeof(float), h_x, 1, d_x, 1);
  float nrm = hipblasSnrm2(n, d_x, 1);
  hipblasSscal(n, 1.0f / nrm, d_x, 1);
  // hipport HP001 [PASS/BUILD]: `cublasGetError` has no HIP equivalent (blas API) (part of the legacy cuBLAS API: one rewrite, carried by `input.cu:5`)
  if (cublasGetError() != HIPBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "scal failed\n");
  }
  hipblasGetVector(n, sizeof(float), d_x, 1, h_x, 1);
  // hipport HP001 [PASS/BUILD]: `cublasFree` has no HIP equivalent (blas API) (part of the legacy cuBLAS API: one rewrite, carried by `input.cu:5`)
  cublasFree(d_x);
  // hipport HP001 [PASS/BUILD]: `cublasShutdown` has no HIP equivalent (blas API) (part of the legacy cuBLAS API: one rewrite, carried by `input.cu:5`)
  cublasShutdown();
  return nrm;
}
