#include <hip/hip_runtime.h>
#include <hiprand/hiprand_kernel.h>

__global__ void setup(hiprandState *state, unsigned long long seed) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  hiprand_init(seed, id, 0, &state[id]);
}

__global__ void monte_carlo(hiprandState *state, unsigned int *hits, int trials) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  hiprandState local = state[id];
  unsigned int count = 0;
  for (int i = 0; i < trials; ++i) {
    float x = hiprand_uniform(&local);
    float y = hiprand_uniform(&local);
    if (x * x + y * y <= 1.0f) ++count;
  }
  state[id] = local;
  atomicAdd(hits, count);
}
