#include <hip/hip_bfloat16.h>
#include <hip/hip_runtime.h>
#include "hipport_compat.h"

__global__ void bf16_scale(hip_bfloat16 *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

__global__ void bf16_pairs(const float2 *in, __hip_bfloat162 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __floats2bfloat162_rn(in[i].x, in[i].y);
}
