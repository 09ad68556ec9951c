#include <cuda_runtime.h>

// cudaDeviceSetLimit has a HIP equivalent only from ROCm 5.3.
void limits() {
  cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  size_t v = 0;
  cudaDeviceGetLimit(&v, cudaLimitStackSize);
}
