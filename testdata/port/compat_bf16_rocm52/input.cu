#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void bf16_scale(__nv_bfloat16 *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

__global__ void bf16_pairs(const float2 *in, __nv_bfloat162 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __floats2bfloat162_rn(in[i].x, in[i].y);
}
