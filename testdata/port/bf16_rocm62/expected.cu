#include <hip/hip_bf16.h>
#include <hip/hip_runtime.h>

__global__ void bf16_scale(__hip_bfloat16 *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

__device__ __hip_bfloat162 pair(float a, float b) { return __floats2bfloat162_rn(a, b); }
