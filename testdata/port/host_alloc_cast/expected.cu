#include <hip/hip_runtime.h>

struct Frame { float data[1024]; };

Frame *pinned_frames(int n) {
  Frame *frames = nullptr;
  hipHostMalloc(&frames, n * sizeof(Frame), hipHostMallocPortable | hipHostMallocMapped);
  float *staging;
  hipHostMalloc((void **)&staging, 4096, hipHostMallocDefault);
  hipHostFree(staging);
  return frames;
}
