#include <cublas_v2.h>
#include <cstdio>

// cuBLAS 11.4's status string: hipBLAS has the same function as hipblasStatusToString (ROCm 4.3).
void report(cublasStatus_t s) {
  if (s != CUBLAS_STATUS_SUCCESS) printf("cublas: %s\n", cublasGetStatusString(s));
}
