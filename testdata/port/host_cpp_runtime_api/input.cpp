#include <cuda_runtime_api.h>
#include <vector>

// Host-only translation unit: uses the runtime API without kernels.
std::vector<float> download(const float *d, size_t n) {
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaPointerAttributes attr;
  cudaPointerGetAttributes(&attr, d);
  return h;
}
