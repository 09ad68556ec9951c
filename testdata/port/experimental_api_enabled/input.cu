#include <cuda_runtime.h>

void graph_flags(cudaGraphExec_t exec) {
  unsigned long long flags = 0;
  cudaGraphExecGetFlags(exec, &flags);
}
