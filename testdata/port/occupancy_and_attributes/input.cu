#include <cuda_runtime.h>

__global__ void work(float *x) { x[threadIdx.x] = 0.f; }

int best_block() {
  int minGrid = 0, block = 0;
  cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, work, 0, 0);
  int active = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, work, block, 0);
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, work);
  cudaFuncSetCacheConfig(work, cudaFuncCachePreferShared);
  return block;
}
