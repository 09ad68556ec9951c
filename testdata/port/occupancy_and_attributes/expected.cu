#include <hip/hip_runtime.h>

__global__ void work(float *x) { x[threadIdx.x] = 0.f; }

int best_block() {
  int minGrid = 0, block = 0;
  hipOccupancyMaxPotentialBlockSize(&minGrid, &block, work, 0, 0);
  int active = 0;
  hipOccupancyMaxActiveBlocksPerMultiprocessor(&active, work, block, 0);
  hipFuncAttributes attr;
  hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(work));
  hipFuncSetCacheConfig(reinterpret_cast<const void*>(work), hipFuncCachePreferShared);
  return block;
}
