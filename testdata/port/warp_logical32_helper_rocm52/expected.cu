#include <hip/hip_runtime.h>

// A helper with no lane arithmetic of its own runs on the lanes of the kernels that call it:
// each ray is a 32-lane group (`>> 5`, `& 0x1F`), so the helper's shuffles read lanes of the
// ray's own group and take width 32 (HIP's default width is the 64-lane wavefront, where lane
// `basis_dim` of the second ray would be read from the first).
__device__ float gather_colors(const float *sh, int basis_dim, int lane_id) {
  float total = sh[lane_id];
  total += __shfl(total, basis_dim, 32);
  total += __shfl(total, 2 * basis_dim, 32);
  return total;
}

__device__ void shade(const float *sh, float *out, int basis_dim, int lane_id) {
  float c = gather_colors(sh, basis_dim, lane_id);
  if (lane_id == 0) out[0] = c;
}

__global__ void render(const float *sh, float *out, int basis_dim) {
  const int ray_id = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane_id = threadIdx.x & 0x1F;
  shade(sh + ray_id * 32, out + ray_id, basis_dim, lane_id);
}

// The twin: a helper also called from a kernel whose lanes span the wavefront is a choice.
__device__ float broadcast(float v, int src) {
  return __shfl(v, src);
}

__global__ void per_ray(float *p) {
  const int lane_id = threadIdx.x & 31;
  p[threadIdx.x] = broadcast(p[threadIdx.x], lane_id & 3);
}

__global__ void per_wave(float *p) {
  const int lane_id = threadIdx.x % warpSize;
  p[threadIdx.x] = broadcast(p[threadIdx.x], lane_id / 2);
}
