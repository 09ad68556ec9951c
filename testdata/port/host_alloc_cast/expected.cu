#include <hip/hip_runtime.h>

struct Frame { float data[1024]; };

Frame *pinned_frames(int n) {
  Frame *frames = nullptr;
  hipHostAlloc((void**)&frames, n * sizeof(Frame), hipHostMallocPortable | hipHostMallocMapped);
  float *staging;
  hipHostAlloc((void **)&staging, 4096, hipHostMallocDefault);
  hipHostFree(staging);
  return frames;
}
