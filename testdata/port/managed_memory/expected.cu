#include <hip/hip_runtime.h>

__global__ void inc(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

void run(int n) {
  int *p;
  hipMallocManaged(&p, n * sizeof(int), hipMemAttachGlobal);
  hipMemAdvise(p, n * sizeof(int), hipMemAdviseSetReadMostly, 0);
  hipMemPrefetchAsync(p, n * sizeof(int), 0, 0);
  inc<<<(n + 127) / 128, 128>>>(p, n);
  hipDeviceSynchronize();
  hipFree(p);
}
