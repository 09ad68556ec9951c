#pragma once
#include <hip/hip_runtime.h>
// Launch helper with no includes of its own.
inline void check(hipError_t e) {
  if (e != hipSuccess) throw e;
}

inline dim3 grid_for(int n, int block) { return dim3((n + block - 1) / block); }
