#include <cstdio>
#include <cstdlib>
#include <cusparse.h>

#define CHECK_CUSPARSE(call)                                                    \
  do {                                                                          \
    cusparseStatus_t s = (call);                                                \
    if (s != CUSPARSE_STATUS_SUCCESS) {                                         \
      fprintf(stderr, "cuSPARSE error %s at %s:%d\n", cusparseGetErrorString(s), \
              __FILE__, __LINE__);                                              \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

int main() {
  cusparseHandle_t handle;
  CHECK_CUSPARSE(cusparseCreate(&handle));
  CHECK_CUSPARSE(cusparseDestroy(handle));
  return 0;
}
