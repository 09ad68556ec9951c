#include <hip/hip_runtime.h>

void graph_flags(hipGraphExec_t exec) {
  unsigned long long flags = 0;
  cudaGraphExecGetFlags(exec, &flags);
}
