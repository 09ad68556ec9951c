#include <hip/hip_runtime.h>

// `__syncwarp(mask)` in ROCm 7.0 takes a 64-bit mask as the other `_sync` forms do: the 32-bit
// full mask is widened where the whole wavefront runs the call, and becomes the mask of the
// lanes actually active (lanes 0-31) under `threadIdx.x < 32`. The mask-less call is kept.
__global__ void warp_prefix(const int *x, int *out) {
  __shared__ int s[256];
  int tid = threadIdx.x;
  int lane = tid & 31;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncwarp();
  for (int d = 1; d < 32; d <<= 1) {
    int v = lane >= d ? s[tid - d] : 0;
    __syncwarp((0xffffffffull << (__lane_id() & 32)));
    s[tid] += v;
    __syncwarp();
  }
  if (threadIdx.x < 32) {
    s[tid] += s[tid + 32];
    __syncwarp(0xffffffffull);
  }
  out[blockIdx.x * blockDim.x + tid] = s[tid];
}
