#pragma once
// Launch helper with no includes of its own.
inline void check(cudaError_t e) {
  if (e != cudaSuccess) throw e;
}

inline dim3 grid_for(int n, int block) { return dim3((n + block - 1) / block); }
