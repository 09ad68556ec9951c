#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <hipsparse/hipsparse.h>
#include "hipport_compat.h"

#define CHECK_CUSPARSE(call)                                                    \
  do {                                                                          \
    hipsparseStatus_t s = (call);                                                \
    if (s != HIPSPARSE_STATUS_SUCCESS) {                                         \
      fprintf(stderr, "cuSPARSE error %s at %s:%d\n", hipsparseGetErrorString(s), \
              __FILE__, __LINE__);                                              \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

int main() {
  hipsparseHandle_t handle;
  CHECK_CUSPARSE(hipsparseCreate(&handle));
  CHECK_CUSPARSE(hipsparseDestroy(handle));
  return 0;
}
