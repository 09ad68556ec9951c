#include <hip/hip_runtime.h>

// The negative twin of warp_logical32: lanes really span the wavefront (lane ids from
// `warpSize`, offsets from `warpSize / 2`), so the shuffles keep HIP's 64-lane width and the
// 64-bit ballot is not cut to a half.
__global__ void block_sum(const float *x, float *out) {
  int lane = threadIdx.x % warpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = warpSize / 2; i > 0; i >>= 1)
    v += __shfl_down(v, i);
  float first = __shfl(v, 0);
  unsigned long long votes = __ballot(v > first);
  if (lane == 0) out[blockIdx.x] = v + first + __popcll(votes);
}
