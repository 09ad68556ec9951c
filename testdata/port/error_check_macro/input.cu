#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t err__ = (call);                                            \
    if (err__ != cudaSuccess) {                                            \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err__), \
              __FILE__, __LINE__);                                         \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

#define CHECK_LAST() CUDA_CHECK(cudaGetLastError())

__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }

int main() {
  int *d;
  CUDA_CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  fill<<<1, 32>>>(d, 7);
  CHECK_LAST();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d));
}
