#include <hip/hip_runtime.h>
#include "hipport_compat.h"

// Block sum: each warp reduces, lane 0 writes, warp 0 reduces the partials.
__global__ void block_sum(const int *in, int *out, unsigned long long *active) {
  __shared__ int partial[32];
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  v = __reduce_add_sync(0xffffffff, v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / warpSize ? partial[lane] : 0;
    __syncwarp();
    v = __reduce_add_sync(0xffffffff, v);
    if (lane == 0) out[blockIdx.x] = v;
  }
  if (threadIdx.x == 0) *active = __activemask();
}
