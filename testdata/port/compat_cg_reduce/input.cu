#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void tile_max(const float *in, float *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = in[block.group_index().x * block.size() + block.thread_rank()];
  float m = cg::reduce(tile, v, cg::greater<float>());
  if (tile.thread_rank() == 0) out[block.group_index().x * (block.size() / 32) + block.thread_rank() / 32] = m;
}
