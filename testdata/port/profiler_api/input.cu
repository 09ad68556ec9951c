#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

void profile_region() {
  cudaProfilerStart();
  cudaDeviceSynchronize();
  cudaProfilerStop();
}
