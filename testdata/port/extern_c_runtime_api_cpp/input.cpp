// A host C++ file with a C-linkage block around the CUDA runtime API header (a C header).
#include <stdio.h>

extern "C" {
#include <cuda_runtime_api.h>

int device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}
}

int main() { printf("%d\n", device_count()); }
