#include <cuda_runtime.h>

void tmp_buffer(cudaStream_t s, size_t n) {
  void *p = nullptr;
  cudaMallocAsync(&p, n, s);
  cudaMemsetAsync(p, 0, n, s);
  cudaFreeAsync(p, s);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
}
