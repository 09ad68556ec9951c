// A .cu file that relies on nvcc including cuda_runtime.h.
#include <hip/hip_runtime.h>
#include <vector>

__global__ void iota(int *out) { out[threadIdx.x] = threadIdx.x; }

void run(std::vector<int> &host) {
  int *dev = nullptr;
  hipMalloc(&dev, host.size() * sizeof(int));
  iota<<<1, host.size()>>>(dev);
  hipMemcpy(host.data(), dev, host.size() * sizeof(int), hipMemcpyDeviceToHost);
  hipFree(dev);
}
