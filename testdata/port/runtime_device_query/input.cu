#include <cuda_runtime.h>
#include <iostream>

int main() {
  int count = 0;
  cudaGetDeviceCount(&count);
  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, dev);
    cudaSetDevice(dev);
    std::cout << prop.name << " SMs " << prop.multiProcessorCount
              << " warp " << prop.warpSize << "\n";
    int value = 0;
    cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, dev);
    size_t freeMem = 0, total = 0;
    cudaMemGetInfo(&freeMem, &total);
  }
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return 0;
}
