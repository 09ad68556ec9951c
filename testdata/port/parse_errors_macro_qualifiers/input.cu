#include <cuda_runtime.h>

#define HOST_DEVICE __host__ __device__
#define CHECK(x) x;

// Macro-qualified functions and a macro statement without ';' confuse any grammar;
// the identifiers are still translated.
HOST_DEVICE inline float twice(float x) { return 2.0f * x; }

void run(float *d, int n) {
  CHECK(cudaMemset(d, 0, n * sizeof(float)))
  CHECK(cudaDeviceSynchronize());
}
