#include <hip/hip_runtime.h>

void graph_flags(hipGraphExec_t exec) {
  unsigned long long flags = 0;
  hipGraphExecGetFlags(exec, &flags);
}

hipError_t launch_ex(const cudaLaunchConfig_t *config, const void *fn, void **args) {
  return cudaLaunchKernelExC(config, fn, args);
}
