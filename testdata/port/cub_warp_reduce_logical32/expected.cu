#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>

// One ray per 32-lane group (`>> 5`, `& 0x1F`): CUB's WarpReduce defaults to the hardware warp
// (32 lanes on NVIDIA), hipCUB's to the wavefront (64 on CDNA), so the port gives it width 32
// where every kernel using it works on 32-lane groups. The twin (`WarpScanT`) is also used by
// a kernel whose lanes come from `warpSize`: its width is a person's choice (HP110).
const int RAYS_PER_BLOCK = 4;
typedef hipcub::WarpReduce<float, 32> WarpReduceT;
typedef hipcub::WarpScan<int> WarpScanT;

__device__ float shade(WarpReduceT::TempStorage &ts, const float *c, int lane) {
  return WarpReduceT(ts).Sum(c[lane]);
}

__global__ void render(const float *colors, float *out) {
  const int ray = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int ray_blk = threadIdx.x >> 5;
  const int lane = threadIdx.x & 0x1F;
  __shared__ typename WarpReduceT::TempStorage storage[RAYS_PER_BLOCK];
  const float s = shade(storage[ray_blk], colors + ray * 32, lane);
  if (lane == 0) out[ray] = s;
}

__global__ void count_groups(const int *flags, int *out) {
  __shared__ typename WarpScanT::TempStorage storage[RAYS_PER_BLOCK];
  int prefix;
  WarpScanT(storage[threadIdx.x >> 5]).ExclusiveSum(flags[threadIdx.x], prefix);
  out[threadIdx.x] = prefix + (threadIdx.x & 31);
}

__global__ void count_waves(const int *flags, int *out) {
  __shared__ typename WarpScanT::TempStorage storage[RAYS_PER_BLOCK];
  int prefix;
  WarpScanT(storage[threadIdx.x / warpSize]).ExclusiveSum(flags[threadIdx.x], prefix);
  out[threadIdx.x] = prefix;
}
