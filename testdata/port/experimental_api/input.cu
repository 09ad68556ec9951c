#include <cuda_runtime.h>

void graph_flags(cudaGraphExec_t exec) {
  unsigned long long flags = 0;
  cudaGraphExecGetFlags(exec, &flags);
}

cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *fn, void **args) {
  return cudaLaunchKernelExC(config, fn, args);
}
