#include <hip/hip_runtime.h>

// A reduction and a match of 32-lane logical warps (`lane = tid & 31`): ROCm 7.0's
// `__reduce_add_sync` and `__match_any_sync` work on the lanes of a 64-bit mask, so no mask or
// width keeps them to the lane's half. They are kept (masks widened) and reported REMEDIATION
// with the choice spelled out (HP109). The twin kernel's lanes come from `warpSize`: its calls
// mean the wavefront and get no HP109 finding.
__global__ void half_sums(const int *x, int *out) {
  int tid = threadIdx.x;
  int lane = tid & 31;
  int v = x[blockIdx.x * blockDim.x + tid];
  int sum = __reduce_add_sync((0xffffffffull << (__lane_id() & 32)), v);
  unsigned long long peers = __match_any_sync((0xffffffffull << (__lane_id() & 32)), v);
  if (lane == 0) out[tid / 32] = sum + (int)peers;
}

__global__ void wave_sums(const int *x, int *out) {
  int tid = threadIdx.x;
  int lane = tid % warpSize;
  int v = x[blockIdx.x * blockDim.x + tid];
  int sum = __reduce_add_sync(0xffffffffffffffffull, v);
  unsigned long long peers = __match_any_sync(0xffffffffffffffffull, v);
  if (lane == 0) out[tid / warpSize] = sum + (int)peers;
}
