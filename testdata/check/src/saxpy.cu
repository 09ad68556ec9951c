#include <cuda_runtime.h>
#include <cstdio>

#include "util.cuh"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void reset_cache() {
  cudaCtxResetPersistingL2Cache();
}

int run(int n) {
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  CHECK(cudaDeviceSynchronize());
  cudaCtxResetPersistingL2Cache();
  cudaFree(x);
  cudaFree(y);
  return 0;
}
