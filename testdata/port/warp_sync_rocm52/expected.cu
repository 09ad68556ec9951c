#include <hip/hip_runtime.h>

__inline__ __device__ float warp_reduce_sum(float val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down(val, offset);
  return val;
}

__global__ void vote(const int *pred, unsigned long long *out) {
  unsigned long long b = __ballot(pred[threadIdx.x] > 0);
  int any = __any(pred[threadIdx.x]);
  float v = __shfl_xor((float)threadIdx.x, 1, 16);
  if (threadIdx.x == 0) out[blockIdx.x] = b + any + (int)v;
}
