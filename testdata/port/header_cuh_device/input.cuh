#ifndef MATH_UTILS_CUH
#define MATH_UTILS_CUH
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_lane_scale(float x) {
  return x * __int_as_float(0x3f800000) + __saturatef(x);
}

__host__ __device__ inline int div_up(int a, int b) { return (a + b - 1) / b; }

inline void sync_or_die() {
  if (cudaDeviceSynchronize() != cudaSuccess) abort();
}
#endif
