#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

float time_kernel(float *d, int n) {
  hipStream_t stream;
  hipEvent_t start, stop;
  hipStreamCreateWithFlags(&stream, hipStreamNonBlocking);
  hipEventCreate(&start);
  hipEventCreate(&stop);
  hipEventRecord(start, stream);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(d, 2.0f, n);
  hipEventRecord(stop, stream);
  hipEventSynchronize(stop);
  float ms = 0.f;
  hipEventElapsedTime(&ms, start, stop);
  hipMemsetAsync(d, 0, n * sizeof(float), stream);
  hipStreamSynchronize(stream);
  hipEventDestroy(start);
  hipEventDestroy(stop);
  hipStreamDestroy(stream);
  return ms;
}
