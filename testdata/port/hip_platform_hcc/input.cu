// A portable source of the kind multi-backend projects keep: the runtime header first, then a
// chain on the compiler: nvcc, the old HIP platform macro, and an error for any other compiler.
// `__HIP_PLATFORM_HCC__` is undefined from ROCm 6.0, so without the rename HIP-Clang would
// stop at the `#error`; `__HIP_PLATFORM_AMD__` is defined by every release hipport targets.
#include <cstdio>
#include <cuda_runtime.h>
#if defined(__NVCC__)
typedef cudaDeviceProp device_prop;
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) std::puts(cudaGetErrorString(e)); } while (0)
#elif defined(__HIP_PLATFORM_HCC__)
typedef hipDeviceProp_t device_prop;
#define CHECK(x) do { hipError_t e = (x); if (e != hipSuccess) std::puts(hipGetErrorString(e)); } while (0)
#else
#error Unsupported compiler
#endif

int device_count() {
  int n = 0;
  CHECK(cudaGetDeviceCount(&n));
  return n;
}
