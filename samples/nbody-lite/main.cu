#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <curand.h>
#include <nvtx3/nvToolsExt.h>
#include "kernels.cuh"

#define CUDA_CHECK(x)                                                     \
  do {                                                                    \
    cudaError_t err = (x);                                                \
    if (err != cudaSuccess) {                                             \
      fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(err));    \
      return 1;                                                           \
    }                                                                     \
  } while (0)

int main() {
  const int n = 4096;
  float4 *pos, *vel;
  float *e;
  CUDA_CHECK(cudaMalloc(&pos, n * sizeof(float4)));
  CUDA_CHECK(cudaMalloc(&vel, n * sizeof(float4)));
  CUDA_CHECK(cudaMalloc(&e, sizeof(float)));
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandGenerateUniform(gen, (float *)pos, 4 * n);
  CUDA_CHECK(cudaMemset(vel, 0, n * sizeof(float4)));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major < 7) printf("needs Volta or newer\n");
  for (int step = 0; step < 10; ++step) {
    nvtxRangePushA("step");
    integrate<<<(n + 255) / 256, 256, 0, stream>>>(pos, vel, n, 0.01f);
    nvtxRangePop();
  }
  CUDA_CHECK(cudaMemsetAsync(e, 0, sizeof(float), stream));
  energy<<<(n + 255) / 256, 256, 0, stream>>>(vel, e, n);
  float h = 0.f;
  CUDA_CHECK(cudaMemcpyAsync(&h, e, sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  printf("kinetic energy %f\n", h);
  curandDestroyGenerator(gen);
  cudaFree(pos); cudaFree(vel); cudaFree(e);
  return 0;
}
