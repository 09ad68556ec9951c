#include <cuda_runtime.h>

__global__ void dot(const float *a, const float *b, float *out, int n) {
  register float acc = 0.0f;
  register int i;
  for (i = threadIdx.x; i < n; i += blockDim.x) acc += a[i] * b[i];
  atomicAdd(out, acc);
}
