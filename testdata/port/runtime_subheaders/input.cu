// Particle update that includes the pieces of cuda_runtime.h it uses one by one.
#include <builtin_types.h>
#include <vector_functions.h>
#include <sm_32_intrinsics.h>
#include <sm_60_atomic_functions.h>

struct Particles {
  float4 *pos;
  float4 *vel;
  int n;
};

__global__ void integrate(Particles p, float dt, unsigned int *escaped) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  float4 x = __ldg(&p.pos[i]);
  float4 v = __ldg(&p.vel[i]);
  x = make_float4(x.x + v.x * dt, x.y + v.y * dt, x.z + v.z * dt, x.w);
  p.pos[i] = x;
  if (x.x * x.x + x.y * x.y + x.z * x.z > 1.0e6f) atomicAdd_system(escaped, 1u);
}

cudaError_t step(Particles p, float dt, unsigned int *escaped, cudaStream_t s) {
  dim3 block(128);
  dim3 grid((p.n + block.x - 1) / block.x);
  integrate<<<grid, block, 0, s>>>(p, dt, escaped);
  return cudaGetLastError();
}
