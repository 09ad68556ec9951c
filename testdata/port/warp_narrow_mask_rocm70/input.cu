#include <cuda_runtime.h>

// Masks of a 32-bit type do not compile with HIP's `_sync` intrinsics (from ROCm 6.2 they
// static_assert a 64-bit mask). Where each 32-lane half of the wavefront is one CUDA warp (rays
// of 32 lanes: `>> 5`, `& 0x1F`, also in the helper the kernel calls), the mask becomes the
// lane's own half; under `threadIdx.x < 32` it is zero-extended; in a function whose lanes may
// span the wavefront it is left for a person (HP015 REMEDIATION).
struct Grid {
  int basis_dim;
  int sh_dim;
};

__device__ void trace_backward(const Grid &grid, float *color, int lane_id) {
  const uint32_t leader_mask = 1U | (1U << grid.basis_dim) | (1U << (2 * grid.basis_dim));
  float total = color[lane_id];
  total += __shfl_sync(leader_mask, total, grid.basis_dim);
  float c = __shfl_sync((1U << grid.sh_dim) - 1, total, 0);
  if (lane_id < grid.sh_dim) {
    c += __shfl_down_sync((1U << grid.sh_dim) - 1, c, 1);
  }
  color[lane_id] = c;
}

__global__ void render_backward(Grid grid, float *colors) {
  const int ray_id = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane_id = threadIdx.x & 0x1F;
  if (lane_id >= grid.sh_dim) return;
  __syncwarp((1U << grid.sh_dim) - 1);
  trace_backward(grid, colors + ray_id * 32, lane_id);
}

__global__ void first_warp(const float *x, float *out, uint32_t active) {
  float v = x[threadIdx.x];
  if (threadIdx.x < 32) {
    v += __shfl_xor_sync(active, v, 1);
    out[threadIdx.x] = v;
  }
}

// The twins: lanes that may span the wavefront (left for a person), 64-bit masks, and a mask
// whose type the tokens do not say.
__device__ float exchange(float v, uint32_t mask) {
  return __shfl_xor_sync(mask, v, 1);
}

__device__ float wide(float v, unsigned long long mask) {
  return __shfl_xor_sync(mask, v, 1) + __shfl_sync(0xffffffffull, v, 0);
}

struct Opts {
  unsigned long long mask;
};

__device__ float member(float v, const Opts &o) {
  return __shfl_sync(o.mask, v, 0);
}
