#include <hip/hip_runtime.h>

// Below 6.2 the project maps the `_sync` shuffles itself: the defined name stays.
#if defined(USE_ROCM)
#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)
#endif

__global__ void reduce(float *x) {
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);
  x[threadIdx.x] = v;
}
