#include <cuda_runtime.h>

struct Frame { float data[1024]; };

Frame *pinned_frames(int n) {
  Frame *frames = nullptr;
  cudaHostAlloc(&frames, n * sizeof(Frame), cudaHostAllocPortable | cudaHostAllocMapped);
  float *staging;
  cudaHostAlloc((void **)&staging, 4096, cudaHostAllocDefault);
  cudaFreeHost(staging);
  return frames;
}
