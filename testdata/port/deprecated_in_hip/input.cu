#include <cuda_runtime.h>

void legacy_sync() {
  cudaThreadSynchronize();
  cudaThreadExit();
}
