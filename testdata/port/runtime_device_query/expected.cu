#include <hip/hip_runtime.h>
#include <iostream>

int main() {
  int count = 0;
  hipGetDeviceCount(&count);
  for (int dev = 0; dev < count; ++dev) {
    hipDeviceProp_t prop;
    hipGetDeviceProperties(&prop, dev);
    hipSetDevice(dev);
    std::cout << prop.name << " SMs " << prop.multiProcessorCount
              << " warp " << prop.warpSize << "\n";
    int value = 0;
    hipDeviceGetAttribute(&value, hipDeviceAttributeMaxThreadsPerBlock, dev);
    size_t freeMem = 0, total = 0;
    hipMemGetInfo(&freeMem, &total);
  }
  int runtime = 0, driver = 0;
  hipRuntimeGetVersion(&runtime);
  hipDriverGetVersion(&driver);
  return 0;
}
