#include <hip/hip_runtime.h>

// Only lanes 0-31 run the second stage (`threadIdx.x < 32`, `warp == 0`): the mask that keeps
// CUDA's meaning names those lanes (0xffffffffull), not the whole 64-lane wavefront, and the
// 32-lane offsets get width 32.
__global__ void block_max(const float *x, float *out) {
  __shared__ float partial[32];
  int tid = threadIdx.x;
  int lane = tid & 31;
  int warp = tid >> 5;
  float v = x[blockIdx.x * blockDim.x + tid];
  for (int i = 16; i > 0; i >>= 1)
    v = fmaxf(v, __shfl_xor_sync((0xffffffffull << (__lane_id() & 32)), v, i, 32));
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = partial[lane];
    for (int i = 16; i > 0; i >>= 1)
      v = fmaxf(v, __shfl_down_sync(0xffffffffull, v, i, 32));
  }
  if (warp == 0) {
    float top = __shfl_sync(0xffffffffull, v, 0, 32);
    if (lane == 0) out[blockIdx.x] = top;
  }
}
