// Warp-aggregated atomics and a ballot-based histogram.
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define NUM_BINS 32
#define THREADS 256

__device__ int warp_aggregated_inc(int* counter) {
  unsigned int active = __activemask();  // expect: warp-size
  int leader = __ffs(active) - 1;  // counted in the finding at `active` (one fact)
  int lane = threadIdx.x & 31;  // expect: warp-size
  int change = __popc(active);
  unsigned lanemask_lt = (1u << lane) - 1;  // expect: warp-size
  int rank = __popc(active & lanemask_lt);
  int warp_res = 0;
  if (lane == leader) warp_res = atomicAdd(counter, change);
  warp_res = __shfl_sync(active, warp_res, leader);  // expect: warp-size
  return warp_res + rank;
}

__global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned local[NUM_BINS];
  if (threadIdx.x < NUM_BINS) local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[in[i] % NUM_BINS], 1u);
  __syncthreads();
  if (threadIdx.x < NUM_BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void tile_sum(const float* in, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);  // expect: warp-size
  float v = in[block.thread_rank()];
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) atomicAdd(out, v);
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  (void)half;
}

__global__ void warp_strided(const float* in, float* out, int n) {
  int lane = threadIdx.x % 32;  // expect: warp-size
  int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;  // expect: warp-size
  float acc = 0.0f;
  for (int j = lane; j < n; j += 32)  // expect: warp-size
    acc += in[gwarp * n + j];
  acc += __shfl_xor_sync(0xffffffff, acc, 16);  // expect: warp-size
  acc += __shfl_xor_sync(0xffffffff, acc, 8);  // expect: warp-size
  if (lane == 0) out[gwarp] = acc;
}

__global__ void warp_size_param(float* out) {
  __shared__ float partial[warpSize];  // expect: warp-size
  partial[threadIdx.x % warpSize] = 1.0f;
  out[threadIdx.x] = partial[threadIdx.x % warpSize];
}
