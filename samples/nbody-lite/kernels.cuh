#ifndef NBODY_KERNELS_CUH
#define NBODY_KERNELS_CUH

#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define WARP_SIZE 32

// Sum a value across the 32 lanes of a warp.
__inline__ __device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void integrate(float4 *pos, float4 *vel, int n, float dt);
__global__ void energy(const float4 *vel, float *out, int n);

#endif
