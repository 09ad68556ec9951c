#include <hip/hip_runtime.h>

__inline__ __device__ float warp_reduce_max(float val) {
  for (int offset = 16; offset > 0; offset /= 2)
    val = fmaxf(val, __shfl_down_sync((0xffffffffull << (__lane_id() & 32)), val, offset, 32));
  return val;
}

__global__ void reduce(const float *x, float *out) {
  float v = warp_reduce_max(x[threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
