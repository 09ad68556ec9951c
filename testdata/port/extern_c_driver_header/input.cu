// Rodinia b+tree style (util/cuda/cuda.cu): the whole file is C-linkage and includes the
// driver header inside the block. cuda.h is C, so nvcc accepts it there; its HIP header is
// C++ and must come before the block.
#ifdef __cplusplus
extern "C" {
#endif

#include "cuda.h"  // (in library path specified to compiler)

void setdevice(void) {
  int num_devices = 0;
  cudaGetDeviceCount(&num_devices);
  if (num_devices > 1) {
    cudaDeviceProp properties;
    cudaGetDeviceProperties(&properties, 0);
    cudaSetDevice(properties.multiProcessorCount > 1 ? 1 : 0);
  }
}

#ifdef USE_PROFILER
#include <cuda_profiler_api.h>
void stop(void) { cudaProfilerStop(); }
#endif

#ifdef __cplusplus
}
#endif
