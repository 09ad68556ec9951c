// Rodinia b+tree style (util/cuda/cuda.cu): the whole file is C-linkage and includes the
// driver header inside the block. cuda.h is C, so nvcc accepts it there; its HIP header is
// C++ and must come before the block.
#include <hip/hip_runtime.h>
#ifdef __cplusplus
extern "C" {
#endif

#include "hip/hip_runtime.h"  // (in library path specified to compiler)

void setdevice(void) {
  int num_devices = 0;
  hipGetDeviceCount(&num_devices);
  if (num_devices > 1) {
    hipDeviceProp_t properties;
    hipGetDeviceProperties(&properties, 0);
    hipSetDevice(properties.multiProcessorCount > 1 ? 1 : 0);
  }
}

#ifdef USE_PROFILER
#include <hip/hip_runtime_api.h>
void stop(void) { hipProfilerStop(); }
#endif

#ifdef __cplusplus
}
#endif
