#include <cuda_runtime.h>

__constant__ float c_weights[64];
__device__ int d_counter;

__global__ void __launch_bounds__(256) apply(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= c_weights[i % 64];
  if (i == 0) atomicAdd(&d_counter, 1);
}

void upload(const float *w) {
  cudaMemcpyToSymbol(c_weights, w, 64 * sizeof(float));
  int zero = 0;
  cudaMemcpyToSymbol(d_counter, &zero, sizeof(int), 0, cudaMemcpyHostToDevice);
  int result;
  cudaMemcpyFromSymbol(&result, d_counter, sizeof(int));
}
