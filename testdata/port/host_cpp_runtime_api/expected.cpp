#include <hip/hip_runtime_api.h>
#include <vector>

// Host-only translation unit: uses the runtime API without kernels.
std::vector<float> download(const float *d, size_t n) {
  std::vector<float> h(n);
  hipMemcpy(h.data(), d, n * sizeof(float), hipMemcpyDeviceToHost);
  hipPointerAttribute_t attr;
  hipPointerGetAttributes(&attr, d);
  return h;
}
