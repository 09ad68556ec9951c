#include <cuda_runtime.h>

// 32-lane logical warps: lane = tid & 31, warp = tid / 32, offsets 16..1.
__global__ void block_sum(const float *x, float *out) {
  __shared__ float partial[32];
  int tid = threadIdx.x;
  int lane = tid & 31;
  int warp = tid / 32;
  float v = x[blockIdx.x * blockDim.x + tid];
  for (int i = 16; i > 0; i >>= 1)
    v += __shfl_down_sync(0xffffffff, v, i);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
    for (int i = 16; i > 0; i >>= 1)
      v += __shfl_down_sync(0xffffffff, v, i);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

__global__ void broadcast(const float *x, float *out) {
  int lane = threadIdx.x % 32;
  float v = x[threadIdx.x];
  float first = __shfl_sync(0xffffffff, v, 0);
  unsigned int votes = __ballot_sync(0xffffffff, v > first);
  out[threadIdx.x] = first + __popc(votes) + lane;
}
