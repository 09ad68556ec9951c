#include <cuda_runtime.h>

__global__ void inc(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

void run(int n) {
  int *p;
  cudaMallocManaged(&p, n * sizeof(int), cudaMemAttachGlobal);
  cudaMemAdvise(p, n * sizeof(int), cudaMemAdviseSetReadMostly, 0);
  cudaMemPrefetchAsync(p, n * sizeof(int), 0, 0);
  inc<<<(n + 127) / 128, 128>>>(p, n);
  cudaDeviceSynchronize();
  cudaFree(p);
}
