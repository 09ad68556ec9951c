// `__CUDA_ARCH__` as the device-pass test: a host-only destructor kept out of device code,
// and a `__host__ __device__` function with a device arm. HIP-Clang defines
// `__HIP_DEVICE_COMPILE__` instead, so `port` adds it beside each test. The architecture-value
// test at the end is about which GPU, not which pass, and stays as written (HP401).
#include <cstdio>
#include <hip/hip_runtime.h>

struct Buffer {
  float* data = nullptr;
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  ~Buffer() {
    if (data) hipFree(data);
  }
#endif
  __host__ __device__ int where() const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return 1 + static_cast<int>(threadIdx.x);
#else
    return 0;
#endif
  }
};

__global__ void k(int* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  out[threadIdx.x] = 80;
#else
  out[threadIdx.x] = 0;
#endif
}

int main() {
  Buffer b;
  std::printf("%d\n", b.where());
  return 0;
}
