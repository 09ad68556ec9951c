#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    hipError_t err__ = (call);                                            \
    if (err__ != hipSuccess) {                                            \
      fprintf(stderr, "CUDA error %s at %s:%d\n", hipGetErrorString(err__), \
              __FILE__, __LINE__);                                         \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

#define CHECK_LAST() CUDA_CHECK(hipGetLastError())

__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }

int main() {
  int *d;
  CUDA_CHECK(hipMalloc(&d, 32 * sizeof(int)));
  fill<<<1, 32>>>(d, 7);
  CHECK_LAST();
  CUDA_CHECK(hipDeviceSynchronize());
  CUDA_CHECK(hipFree(d));
}
