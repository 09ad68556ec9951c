#include <cuda_runtime.h>

int enable_peers(int n) {
  for (int i = 0; i < n; ++i) {
    cudaSetDevice(i);
    for (int j = 0; j < n; ++j) {
      int can = 0;
      cudaDeviceCanAccessPeer(&can, i, j);
      if (can && i != j) cudaDeviceEnablePeerAccess(j, 0);
    }
  }
  cudaIpcMemHandle_t h;
  void *p;
  cudaMalloc(&p, 1 << 20);
  cudaIpcGetMemHandle(&h, p);
  return 0;
}
