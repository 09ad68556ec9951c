#include <cuda_runtime.h>
#include <curand_kernel.h>

__global__ void setup(curandState *state, unsigned long long seed) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  curand_init(seed, id, 0, &state[id]);
}

__global__ void monte_carlo(curandState *state, unsigned int *hits, int trials) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  curandState local = state[id];
  unsigned int count = 0;
  for (int i = 0; i < trials; ++i) {
    float x = curand_uniform(&local);
    float y = curand_uniform(&local);
    if (x * x + y * y <= 1.0f) ++count;
  }
  state[id] = local;
  atomicAdd(hits, count);
}
