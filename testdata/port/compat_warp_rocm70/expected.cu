#include <hip/hip_runtime.h>

__global__ void fence(int *p) {
  p[threadIdx.x] = 1;
  __syncwarp();
  p[threadIdx.x] += p[(threadIdx.x + 1) % warpSize];
}
