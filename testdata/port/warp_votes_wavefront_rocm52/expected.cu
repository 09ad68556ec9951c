#include <hip/hip_runtime.h>

// The negative twin of warp_votes: lanes and warps from `warpSize`, so the kernel's warp is the
// 64-lane wavefront and HIP's `__all`/`__any` over it keep the meaning: no own-half rewrite.
__global__ void wave_votes(const float *x, int *out) {
  int tid = threadIdx.x;
  int lane = tid % warpSize;
  int wave = tid / warpSize;
  float v = x[blockIdx.x * blockDim.x + tid];
  int all_pos = __all(v > 0.0f);
  int any_big = __any(v > 100.0f);
  if (lane == 0)
    out[blockIdx.x * (blockDim.x / warpSize) + wave] = all_pos + 2 * any_big;
}
