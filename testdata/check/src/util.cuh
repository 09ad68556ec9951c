#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                     \
  do {                                                                  \
    cudaError_t err_ = (call);                                          \
    if (err_ != cudaSuccess) {                                          \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(err_));           \
      return 1;                                                         \
    }                                                                   \
  } while (0)

inline void plane(cudaArray_t a, cudaArray_t* out) {
  cudaArrayGetPlane(out, a, 0);
}
