#include <hip/hip_runtime.h>

// Votes of 32-lane logical warps (`lane = tid & 31`, `warp = tid / 32`): HIP's `__all`/`__any`
// span the 64-lane wavefront, so each vote becomes the test of the lane's own 32-lane half of a
// ballot of its predicate; a ballot compared with or counted as a 32-bit mask keeps the lane's
// own half.
#define FULL_MASK 0xffffffff

__global__ void warp_votes(const float *x, int *out) {
  int tid = threadIdx.x;
  int lane = tid & 31;
  int warp = tid / 32;
  float v = x[blockIdx.x * blockDim.x + tid];
  int all_pos = (((__ballot(!(v > 0.0f)) >> (__lane_id() & 32)) & 0xffffffffull) == 0);
  int any_big = (((__ballot(v > 100.0f) >> (__lane_id() & 32)) & 0xffffffffull) != 0);
  bool uniform = ((unsigned int)(__ballot_sync((0xffffffffull << (__lane_id() & 32)), v == x[0]) >> (__lane_id() & 32))) == 0xffffffff;
  int count = __popc(((unsigned int)(__ballot_sync((0xffffffffull << (__lane_id() & 32)), v < 0.0f) >> (__lane_id() & 32))));
  if (lane == 0)
    out[blockIdx.x * (blockDim.x / 32) + warp] = all_pos + 2 * any_big + 4 * uniform + 8 * count;
}
