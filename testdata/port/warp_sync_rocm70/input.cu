#include <cuda_runtime.h>

__device__ unsigned long long active_lanes() { return __activemask(); }

__device__ int leader_sum(int v) {
  unsigned mask = __ballot_sync(0xffffffff, v != 0);
  __syncwarp();
  return __shfl_sync(0xffffffff, v, 0) + (int)mask;
}
