#include <cuda_runtime.h>

__global__ void histogram(const unsigned char *data, int n, unsigned int *bins) {
  __shared__ unsigned int local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[__ldg(&data[i])], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
  __threadfence();
}

__device__ float smooth(float x) {
  return __expf(-x * x) + rsqrtf(x + 1.0f) + __fdividef(x, 3.0f) + fmaxf(x, 0.f);
}
