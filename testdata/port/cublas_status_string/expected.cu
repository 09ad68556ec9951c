#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <cstdio>

// cuBLAS 11.4's status string: hipBLAS has the same function as hipblasStatusToString (ROCm 4.3).
void report(hipblasStatus_t s) {
  if (s != HIPBLAS_STATUS_SUCCESS) printf("cublas: %s\n", hipblasStatusToString(s));
}
