#include <hip/hip_runtime.h>

// 32-lane offsets beside a lane id from `warpSize`: the code mixes two warp sizes, so width 32
// on the shuffle down (which crosses halves at width 64; an xor below 32 would not)
// is an unsafe rewrite (a person chooses); applied here because `--unsafe-fixes` asks for it.
__global__ void row_sum(const float *x, float *out) {
  int lane = threadIdx.x % warpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 16; i > 0; i >>= 1)
    v += __shfl_down(v, i, 32);
  if (lane == 0) out[blockIdx.x] = v;
}
