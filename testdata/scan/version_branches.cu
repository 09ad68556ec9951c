// Feature selection by CUDA version and compiler.
#include <cuda_runtime.h>
#include <cstdio>

#ifdef __CUDACC__  // expect: version-check
#define HD __host__ __device__
#else
#define HD
#endif

#if CUDART_VERSION >= 11000  // expect: version-check
#include <cuda/std/type_traits>  // expect: library
#define HAS_ASYNC_ALLOC 1
#else
#define HAS_ASYNC_ALLOC 0
#endif

#if defined(__NVCC__) && (__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 2))  // expect: version-check
#define USE_NEW_MATH 1
#endif

#ifndef USE_NEW_MATH
#define USE_NEW_MATH 0
#endif

HD inline float scale(float x) { return 2.0f * x; }

__global__ void k(float* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700  // expect: arch-check
  p[threadIdx.x] = scale(p[threadIdx.x]);
#else
  p[threadIdx.x] = 0.0f;
#endif
}

__device__ float pick(float a, float b) {
#ifdef __CUDA_ARCH__  // expect: arch-check
  return fminf(a, b);
#else
  return a < b ? a : b;
#endif
}

int main() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  printf("runtime %d driver %d\n", runtime, driver);
  if (runtime < 11020) {  // expect: version-check
    printf("old runtime\n");
  }
  if (driver >= 12000 && runtime >= 12000)  // expect: version-check
    printf("cuda 12\n");
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("%s cc %d.%d\n", prop.name, prop.major, prop.minor);
  if (prop.major >= 8) {  // expect: arch-check
    printf("ampere or newer\n");
  }
  int cc = prop.major * 10 + prop.minor;
  bool tensor = cc >= 70;  // expect: arch-check
  const char* opts[] = {"--gpu-architecture=compute_80", "-lineinfo"};  // expect: arch-check
  printf("%d %d %s %d\n", tensor, HAS_ASYNC_ALLOC, opts[1], USE_NEW_MATH);
  const char* msg = "smem usage is fine";
  printf("%s %d\n", msg, prop.multiProcessorCount);
  return 0;
}
