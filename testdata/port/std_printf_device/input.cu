#include <cstdio>
#include <cuda_runtime.h>

// hipcc rejects std::printf in device code; the port writes `printf` where the function is
// __global__ or __device__, reports it in a __host__ __device__ one, and keeps host calls.
__device__ void trace(int v) {
  if (v > 0) {
    std::printf("v=%d\n", v);
  }
}

__global__ void __launch_bounds__(256) kernel(int *x) {
  for (int i = 0; i < 2; ++i) {
    std::printf("%d %d\n", (int)threadIdx.x, x[i]);
  }
  trace(x[0]);
}

__host__ __device__ inline void both(int v) { std::printf("%d\n", v); }

void host_side(int n) {
  std::printf("n=%d\n", n);
  int *x;
  cudaMalloc(&x, n * sizeof(int));
  kernel<<<1, 32>>>(x);
  both(n);
}
