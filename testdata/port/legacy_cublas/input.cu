// The legacy cuBLAS API (cublas.h): no handle, scalars by value, results returned. hipBLAS has
// only the handle-based API, so the port keeps HIPIFY's renames and one HP611 says why the
// calls must be rewritten.
#include <stdio.h>
#include <cublas.h>

float norm_and_scale(float *h_x, int n) {
  float *d_x = 0;
  cublasInit();
  if (cublasAlloc(n, sizeof(float), (void **)&d_x) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "device memory allocation failed\n");
    return -1.0f;
  }
  cublasSetVector(n, sizeof(float), h_x, 1, d_x, 1);
  float nrm = cublasSnrm2(n, d_x, 1);
  cublasSscal(n, 1.0f / nrm, d_x, 1);
  if (cublasGetError() != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "scal failed\n");
  }
  cublasGetVector(n, sizeof(float), d_x, 1, h_x, 1);
  cublasFree(d_x);
  cublasShutdown();
  return nrm;
}
