#include <cuda_runtime.h>

__inline__ __device__ float warp_reduce_sum(float val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

__global__ void vote(const int *pred, unsigned long long *out) {
  unsigned long long b = __ballot_sync(0xffffffff, pred[threadIdx.x] > 0);
  int any = __any_sync(0xffffffff, pred[threadIdx.x]);
  float v = __shfl_xor_sync(0xffffffff, (float)threadIdx.x, 1, 16);
  if (threadIdx.x == 0) out[blockIdx.x] = b + any + (int)v;
}
