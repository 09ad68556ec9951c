// A host C++ file with a C-linkage block around the CUDA runtime API header (a C header).
#include <stdio.h>

#include <hip/hip_runtime_api.h>
extern "C" {
#include <hip/hip_runtime_api.h>

int device_count(void) {
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess) return 0;
  return n;
}
}

int main() { printf("%d\n", device_count()); }
