#include <hip/hip_runtime.h>

__constant__ float c_weights[64];
__device__ int d_counter;

__global__ void __launch_bounds__(256) apply(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= c_weights[i % 64];
  if (i == 0) atomicAdd(&d_counter, 1);
}

void upload(const float *w) {
  hipMemcpyToSymbol(c_weights, w, 64 * sizeof(float));
  int zero = 0;
  hipMemcpyToSymbol(d_counter, &zero, sizeof(int), 0, hipMemcpyHostToDevice);
  int result;
  hipMemcpyFromSymbol(&result, d_counter, sizeof(int));
}
