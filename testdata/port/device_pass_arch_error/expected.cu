// A device-pass test whose device arm holds a chain on architecture values that ends in
// `#error` for architectures it does not list (the shape of a launch-parameter header that
// picks tuning per `sm_XX`). HIP-Clang defines no `__CUDA_ARCH__`, so a chain nested in the
// device arm sees 0 and takes the `#error`: `port` must not widen the outer test to
// `__HIP_DEVICE_COMPILE__` (HP401 stays open, naming the `#error`). The twin below has a
// generic fallback instead of an `#error`, so its test is widened.
#include <hip/hip_runtime.h>

struct tuning_t {
  int nt, vt;
};

#ifdef __CUDA_ARCH__
#if __CUDA_ARCH__ >= 800
#define TUNING_NT 256
#elif __CUDA_ARCH__ >= 700
#define TUNING_NT 128
#elif __CUDA_ARCH__ >= 300
#define TUNING_NT 64
#else
#error "this library does not support sm_2x or older"
#endif
#else
#define TUNING_NT 0
#endif

__host__ __device__ inline int vector_width() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#if __CUDA_ARCH__ >= 700
  return 8;
#else
  return 4;
#endif
#else
  return 1;
#endif
}

__global__ void fill(int* out) {
  out[threadIdx.x] = TUNING_NT * vector_width();
}

int main() {
  int* d = nullptr;
  hipMalloc(&d, 256 * sizeof(int));
  fill<<<1, 256>>>(d);
  hipDeviceSynchronize();
  hipFree(d);
  return 0;
}
